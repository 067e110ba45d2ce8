import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { WorkingChannels } from "./working-channels.js";

/**
 * The assistant message of the current step: the newest AI message, followed by nothing but
 * tool results (a plugin may already have answered some calls, e.g. refused them).
 */
export function newestAssistant(local: WorkingChannels): { message: AIMessage; index: number } | null {
  const messages = local.get<BaseMessage[]>("messages") ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (AIMessage.isInstance(m)) return { message: m, index: i };
    if (!ToolMessage.isInstance(m)) return null;
  }
  return null;
}

/** Whether the current step's assistant message has a tool call no result answers yet. */
export function hasToolCalls(local: WorkingChannels): boolean {
  const found = newestAssistant(local);
  if (!found) return false;
  const messages = local.get<BaseMessage[]>("messages") ?? [];
  const answered = new Set(messages.slice(found.index + 1).map((m) => (m as ToolMessage).tool_call_id));
  return (found.message.tool_calls ?? []).some((c) => !answered.has(c.id ?? ""));
}

/** Replace the step's assistant message; results already given to calls it no longer has go too (no orphans). */
export function replaceAssistant(local: WorkingChannels, previous: AIMessage, message: AIMessage): void {
  const messages = [...(local.get<BaseMessage[]>("messages") ?? [])];
  const at = Math.max(0, messages.lastIndexOf(previous));
  const kept = new Set((message.tool_calls ?? []).map((c) => c.id));
  const results = messages.slice(at + 1).filter((m) => ToolMessage.isInstance(m) && kept.has(m.tool_call_id));
  local.set("messages", [...messages.slice(0, at), message, ...results]);
}

