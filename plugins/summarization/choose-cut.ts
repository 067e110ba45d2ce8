import { AIMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** Where a compaction cuts: `messages[head, start)` are summarized, the rest is kept. */
export interface Cut {
  /** Leading system messages: kept first, never summarized. */
  head: number;
  /** Index of the first message of the kept tail. */
  start: number;
}

/** For each tool message, the index of the latest earlier assistant message that made its call. */
function callerIndexes(messages: readonly BaseMessage[]): Map<number, number> {
  const callers = new Map<number, number>();
  const openCalls = new Map<string, number>();
  messages.forEach((message, index) => {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id) openCalls.set(call.id, index);
    } else if (ToolMessage.isInstance(message)) {
      const caller = openCalls.get(message.tool_call_id);
      if (caller !== undefined) callers.set(index, caller);
    }
  });
  return callers;
}

/**
 * Choose the cut for keeping `keep` recent messages. The cut only ever moves **earlier**
 * (the tail grows; nothing the model needs is summarized away):
 * - past a tool message at the start of the tail, so the tail never begins with a tool result;
 * - to the assistant message whose tool calls are answered inside the tail, so a call and
 *   its results are never separated (parallel calls move the cut to their one AI message).
 * The summary message goes between the leading system messages and the tail, so the kept
 * history starts with system, then user content (the summary), even when the tail begins
 * with an assistant message. Null when nothing would be summarized.
 *
 * @example
 * // [system, user, ai(3 calls), tool, tool, tool], keep 2 → { head: 1, start: 2 }: the AI block stays whole.
 */
export function chooseCut(messages: readonly BaseMessage[], keep: number): Cut | null {
  let head = 0;
  while (head < messages.length && SystemMessage.isInstance(messages[head])) head += 1;
  const callers = callerIndexes(messages);
  let start = Math.max(head, messages.length - keep);
  for (let moved = true; moved && start > head; ) {
    moved = false;
    if (ToolMessage.isInstance(messages[start])) {
      start = callers.get(start) ?? start - 1;
      moved = true;
      continue;
    }
    for (let i = start; i < messages.length; i++) {
      const caller = callers.get(i);
      if (caller !== undefined && caller < start) {
        start = caller;
        moved = true;
      }
    }
  }
  return start > head ? { head, start } : null;
}
