import { AIMessage } from "@langchain/core/messages";
import type { LocalState } from "./local-state.js";
import { keelMeta, messageText, setKeelMeta } from "./message-meta.js";
import type { StopReasonEntry } from "./status.js";

export interface StopDecision {
  /** `end` wins over a forced final call when several guards ask at once. */
  mode: "final" | "end" | null;
  reasons: StopReasonEntry[];
}

/** Stop requests written since `seen` (entries without `request` only record a reason). */
export function pendingStops(state: LocalState, seen: number): { decision: StopDecision; seen: number } {
  const all = (state.get<StopReasonEntry[]>("stopReasons") ?? []) as StopReasonEntry[];
  const fresh = all.slice(seen).filter((r) => r.request === "final" || r.request === "end");
  const mode = fresh.some((r) => r.request === "end") ? "end" : fresh.length > 0 ? "final" : null;
  return { decision: { mode, reasons: fresh }, seen: all.length };
}

/**
 * Remove the tool calls of an assistant message (and the provider's raw copies), keeping
 * calls of `protectedTools` (a child's `return_result` is never stripped).
 */
export function stripToolCalls(message: AIMessage, protectedTools: ReadonlySet<string>): AIMessage {
  const calls = message.tool_calls ?? [];
  const kept = calls.filter((c) => protectedTools.has(c.name));
  const removed = calls.length - kept.length + (message.invalid_tool_calls?.length ?? 0);
  if (removed === 0) return message;
  const keptIds = new Set(kept.map((c) => c.id));
  const content = Array.isArray(message.content)
    ? (message.content as Array<Record<string, unknown>>).filter((b) => b.type !== "tool_use" || keptIds.has(b.id as string))
    : message.content;
  const rawCalls = (message.additional_kwargs?.tool_calls as Array<{ id?: string }> | undefined)?.filter((c) => keptIds.has(c.id));
  const { tool_calls: _raw, ...kwargs } = message.additional_kwargs ?? {};
  const stripped = new AIMessage({
    id: message.id,
    content: content as AIMessage["content"],
    tool_calls: kept,
    invalid_tool_calls: [],
    additional_kwargs: rawCalls && rawCalls.length > 0 ? { ...kwargs, tool_calls: rawCalls as never } : kwargs,
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    ...(message.name ? { name: message.name } : {}),
  });
  return setKeelMeta(stripped, { strippedToolCalls: (keelMeta(message).strippedToolCalls ?? 0) + removed }) as AIMessage;
}

/** Append kernel text to an assistant message; it is marked so it never counts as usable output. */
export function appendKernelText(message: AIMessage, text: string): AIMessage {
  const added = (keelMeta(message).addedText ?? "") + text;
  const body = messageText(message);
  const next = new AIMessage({
    id: message.id,
    content: body + text,
    tool_calls: message.tool_calls ?? [],
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
  });
  return setKeelMeta(next, { addedText: added }) as AIMessage;
}

export function describeStops(reasons: readonly StopReasonEntry[]): string {
  return reasons.map((r) => `${r.reason} (by ${r.by}${r.detail ? `: ${r.detail}` : ""})`).join(", ");
}
