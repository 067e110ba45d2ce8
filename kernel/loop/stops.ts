import { AIMessage } from "@langchain/core/messages";
import type { LoopState, RunDeps } from "./loop-state.js";
import { keelMeta, messageText, setKeelMeta } from "./message-meta.js";
import type { StopReasonEntry } from "./status.js";
import { hasToolCalls, replaceAssistant } from "./step-messages.js";
import type { WorkingChannels } from "./working-channels.js";

export interface StopDecision {
  /** `end` wins over a forced final call when several guards ask at once. */
  mode: "final" | "end" | null;
  reasons: StopReasonEntry[];
}

/**
 * Guards never throw to stop a run; they write a stop reason with a request. `end`:
 * strip the tool calls, append an explanation, end with no further call. `final`:
 * strip the tool calls and make one forced final call with no tools bound.
 */
export function actOnStops(deps: RunDeps, loop: LoopState, local: WorkingChannels, response: AIMessage | null): void {
  const { decision, seen } = pendingStops(local, loop.stopsSeen);
  loop.stopsSeen = seen;
  const ai = response ?? null;
  if (decision.mode === "end") {
    if (ai) replaceAssistant(local, ai, appendKernelText(stripToolCalls(ai, new Set()), `\n\n[Keel stopped this run: ${describeStops(decision.reasons)}]`));
    loop.route = "end";
    return;
  }
  if (decision.mode === "final") {
    if (ai) replaceAssistant(local, ai, stripToolCalls(ai, deps.protectedTools));
    loop.forced = [...(loop.forced ?? []), ...decision.reasons];
    loop.route = ai && hasToolCalls(local) ? "tools" : "agent";
    return;
  }
  loop.route = ai === null ? "agent" : hasToolCalls(local) ? "tools" : "end";
}

/** Stop requests written since `seen` (entries without `request` only record a reason). */
export function pendingStops(state: WorkingChannels, seen: number): { decision: StopDecision; seen: number } {
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
