import type { AIMessage } from "@langchain/core/messages";
import { usableText } from "../../kernel/loop/message-meta.js";

/** Provider values meaning the output was blocked or cut by a safety system. */
export const SAFETY_FINISH = ["content_filter", "refusal", "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION"] as const;
/** Provider values meaning the output hit the model's output token limit. */
export const LENGTH_FINISH = ["length", "max_tokens", "MAX_TOKENS"] as const;

/** Where each provider puts its raw finish reason in `response_metadata`. */
export const FINISH_FIELDS = [
  ["finish_reason", "openai"],
  ["stop_reason", "anthropic"],
  ["finishReason", "gemini"],
] as const;

export type Provider = (typeof FINISH_FIELDS)[number][1];

export interface RawFinish {
  kind: "safety" | "length" | "other";
  field: string;
  provider: Provider;
  raw: string;
}

function kindOf(raw: string): RawFinish["kind"] {
  if ((SAFETY_FINISH as readonly string[]).includes(raw)) return "safety";
  if ((LENGTH_FINISH as readonly string[]).includes(raw)) return "length";
  return "other";
}

/**
 * The provider's own finish reason, read from the raw `response_metadata` (not the
 * kernel's normalized copy). When several fields are set (proxies), the most severe wins:
 * safety, then length.
 */
export function rawFinish(responseMetadata: unknown): RawFinish | null {
  const meta = (typeof responseMetadata === "object" && responseMetadata !== null ? responseMetadata : {}) as Record<string, unknown>;
  const found: RawFinish[] = [];
  for (const [field, provider] of FINISH_FIELDS) {
    const raw = meta[field];
    if (typeof raw === "string" && raw.length > 0) found.push({ kind: kindOf(raw), field, provider, raw });
  }
  return found.find((f) => f.kind === "safety") ?? found.find((f) => f.kind === "length") ?? found[0] ?? null;
}

export interface FinishOptions {
  safety: boolean;
  length: boolean;
}

export interface FinishStop {
  reason: "safety_capped" | "model_length_capped";
  /** `end`: no further model call; `final`: one forced final answer. */
  request: "end" | "final";
  detail: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Any safety finish → end the run now (`safety_capped`): tool calls are stripped (never run);
 * text without tool calls is kept as the answer, but the run is `partial`, never a clean
 * success. Length with tool calls → the truncated calls are stripped and a final answer
 * forced (`model_length_capped`). A length finish without tool calls needs no stop: the cut
 * text is still the model's output.
 */
export function finishStop(message: AIMessage, options: FinishOptions): FinishStop | null {
  const finish = rawFinish(message.response_metadata);
  if (!finish || finish.kind === "other") return null;
  const calls = (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0);
  const source = `${finish.provider} ${finish.field}=${finish.raw}`;
  if (finish.kind === "safety" && options.safety) {
    const blank = usableText(message).length === 0;
    const what =
      calls > 0
        ? `a response with ${plural(calls, "tool call")} (stripped, not run)`
        : blank
          ? "a response with no text"
          : "a response with text and no tool calls (the text is kept as the answer)";
    return { reason: "safety_capped", request: "end", detail: `${source} on ${what}` };
  }
  if (finish.kind === "length" && options.length && calls > 0) {
    return { reason: "model_length_capped", request: "final", detail: `${source}: output cut off inside ${plural(calls, "tool call")} (stripped, not run)` };
  }
  return null;
}
