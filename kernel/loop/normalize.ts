import type { AIMessage } from "@langchain/core/messages";
import type { FinishKind, NormalizedFinish } from "./message-meta.js";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

const SAFETY = new Set(["content_filter", "refusal", "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION"]);
const LENGTH = new Set(["length", "max_tokens", "MAX_TOKENS"]);
const TOOL_CALLS = new Set(["tool_calls", "tool_use", "function_call"]);
const STOP = new Set(["stop", "end_turn", "STOP", "stop_sequence"]);

/** One finish-reason shape for OpenAI `finish_reason`, Anthropic `stop_reason` and Gemini `finishReason`. */
export function normalizeFinish(message: AIMessage): NormalizedFinish {
  const meta = (message.response_metadata ?? {}) as Record<string, unknown>;
  const candidates: Array<[string, NormalizedFinish["provider"]]> = [
    ["finish_reason", "openai"],
    ["stop_reason", "anthropic"],
    ["finishReason", "gemini"],
  ];
  for (const [field, provider] of candidates) {
    const raw = meta[field];
    if (typeof raw === "string" && raw.length > 0) return { kind: classify(raw), raw, provider };
  }
  return { kind: (message.tool_calls?.length ?? 0) > 0 ? "tool_calls" : "stop" };
}

function classify(raw: string): FinishKind {
  if (SAFETY.has(raw)) return "safety";
  if (LENGTH.has(raw)) return "length";
  if (TOOL_CALLS.has(raw)) return "tool_calls";
  if (STOP.has(raw)) return "stop";
  return "other";
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

/** Token usage from `usage_metadata`, else the provider's raw usage fields. */
export function normalizeUsage(message: AIMessage): TokenUsage {
  const um = message.usage_metadata as { input_tokens?: number; output_tokens?: number; total_tokens?: number } | undefined;
  let input = num(um?.input_tokens);
  let output = num(um?.output_tokens);
  if (!um) {
    const meta = (message.response_metadata ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const raw = meta.tokenUsage ?? meta.usage ?? meta.usageMetadata ?? {};
    input = num(raw.promptTokens ?? raw.prompt_tokens ?? raw.input_tokens ?? raw.promptTokenCount);
    output = num(raw.completionTokens ?? raw.completion_tokens ?? raw.output_tokens ?? raw.candidatesTokenCount);
  }
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}
