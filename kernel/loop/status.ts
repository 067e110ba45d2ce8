import type { BaseMessage } from "@langchain/core/messages";
import { sha256Hex } from "../hashing.js";
import { keelMeta, lastAssistant, usableText } from "./message-meta.js";
import type { TokenUsage } from "./normalize.js";

export interface StopReason {
  reason: string;
  by: string;
  turn?: number;
  detail?: string;
  limit?: { type: "turns" | "tokens" | "calls" | "subagents" | "seconds"; value: number };
}

/** A stop reason as kept in the channel: `request` asks the kernel to force a final answer or to end. */
export interface StopReasonEntry extends StopReason {
  request?: "final" | "end" | "none";
}

export type RunStatus = "succeeded" | "partial" | "failed" | "cancelled" | "timed_out";

export interface RunError {
  type: string;
  message: string;
  retryable: boolean;
}

export interface StatusV2Payload {
  contract: "status";
  version: 2;
  status: RunStatus;
  stopReasons: StopReason[];
  primaryStopReason?: string;
  text: string;
  error?: RunError;
  resultSha256?: string;
  usage?: TokenUsage;
}

/** Severity order of status@2: safety > budget/token > loop > progress > subagent_limit > turn > model_length > others. */
const SEVERITY = ["safety_capped", "budget_exceeded", "token_capped", "loop_capped", "progress_blocked", "subagent_limit_capped", "turn_capped", "model_length_capped"];

export function primaryStopReason(reasons: readonly StopReason[]): string | undefined {
  let best: string | undefined;
  let bestRank = Infinity;
  for (const { reason } of reasons) {
    const rank = SEVERITY.indexOf(reason);
    const effective = rank === -1 ? SEVERITY.length : rank;
    if (effective < bestRank) {
      best = reason;
      bestRank = effective;
    }
  }
  return best;
}

export function toStopReason(entry: StopReasonEntry): StopReason {
  const { request: _request, ...reason } = entry;
  return reason;
}

export interface StatusInput {
  messages: readonly BaseMessage[];
  stopReasons: readonly StopReasonEntry[];
  error?: RunError | null;
  cancelled?: boolean;
  usage?: TokenUsage;
  /** The run paused for input (kernel/loop/pause.ts): `partial` with this stop reason (`awaiting_input`). */
  paused?: StopReason;
}

/**
 * status@2, derived once at the end: `succeeded` only with no stop reason and usable
 * output; a stop reason with usable output is `partial` (never success); no usable
 * output is `failed`; the error fallback on the last assistant message is `failed`.
 */
export function deriveStatus(input: StatusInput): StatusV2Payload {
  const stopReasons = [...input.stopReasons.map(toStopReason), ...(input.paused && !input.cancelled && !input.error ? [input.paused] : [])];
  const primary = primaryStopReason(stopReasons);
  const base = {
    contract: "status" as const,
    version: 2 as const,
    stopReasons,
    ...(primary === undefined ? {} : { primaryStopReason: primary }),
    ...(input.usage ? { usage: input.usage } : {}),
  };
  if (input.cancelled) {
    return { ...base, status: "cancelled", text: "Run cancelled", error: { type: "KEEL_ERR_RUN_CANCELLED", message: "Run cancelled", retryable: true } };
  }
  if (input.error) return { ...base, status: "failed", text: input.error.message, error: input.error };

  const last = lastAssistant(input.messages);
  const fallback = last ? keelMeta(last).errorFallback : undefined;
  if (fallback) return { ...base, status: "failed", text: fallback.message, error: fallback };

  const text = last ? usableText(last) : "";
  if (input.paused) {
    // A pause is not a failure, even before any usable output: the thread waits for its input.
    const shown = text.length > 0 ? text : (input.paused.detail ?? "Awaiting input");
    return { ...base, status: "partial", text: shown, ...(text.length > 0 ? { resultSha256: sha256Hex(text) } : {}) };
  }
  if (text.length > 0) {
    return { ...base, status: stopReasons.length === 0 ? "succeeded" : "partial", text, resultSha256: sha256Hex(text) };
  }
  const turnCap = stopReasons.find((r) => r.reason === "turn_capped");
  const message = turnCap?.limit
    ? `Reached max_turns=${turnCap.limit.value}`
    : primary
      ? `Stopped (${primary}) without usable output`
      : "The run ended without usable output";
  return { ...base, status: "failed", text: message, error: { type: primary ?? "no_usable_output", message, retryable: false } };
}
