import { AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import { isSystemPart, mergeSystemParts } from "./merge-system.js";

/** Content of the synthetic result given to a tool call that has none. */
export const DANGLING_RESULT = "[no result: the call was interrupted]";
/** Content of the user placeholder put first when the conversation would open with an assistant or tool message. */
export const OPENING_PLACEHOLDER = "[The earlier part of this conversation is not shown; continue from here.]";

export interface CoalesceRepairs {
  /** System parts merged into (or moved to) the leading position; 0 when there was at most one and it was first. */
  mergedSystemParts: number;
  /** Tool results moved up to sit right after their call. */
  movedResults: number;
  /** Tool results dropped: no earlier assistant call with their id, or a second result for one call. */
  droppedOrphans: number;
  /** Synthetic error results given to calls that had none. */
  danglingCalls: number;
  /** Whether the user placeholder was put first. */
  placeholder: boolean;
}

export function hasRepairs(r: CoalesceRepairs): boolean {
  return r.mergedSystemParts > 0 || r.movedResults > 0 || r.droppedOrphans > 0 || r.danglingCalls > 0 || r.placeholder;
}

function danglingResult(call: { id?: string; name: string }): ToolMessage {
  const message = new ToolMessage({ content: DANGLING_RESULT, tool_call_id: call.id ?? "", name: call.name, status: "error" });
  return setKeelMeta(message, { hidden: true, synthetic: "dangling_tool_call" }) as ToolMessage;
}

/** Positions of the tool results per call id, in order. */
function resultsById(messages: readonly BaseMessage[]): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  messages.forEach((m, i) => {
    if (!ToolMessage.isInstance(m)) return;
    const list = byId.get(m.tool_call_id) ?? [];
    list.push(i);
    byId.set(m.tool_call_id, list);
  });
  return byId;
}

/**
 * Whether `coalesceMessages` would leave `messages` as they are (no repair): at most one
 * system message and only first, user content first after it, every assistant message's
 * calls answered right after it in call order, no other tool result. One pass with no
 * allocation, so a request that needs nothing (the common turn) costs a type check per message.
 */
export function isCoalesced(messages: readonly BaseMessage[]): boolean {
  let i = 0;
  if (messages.length > 0 && BaseMessage.isInstance(messages[0]) && isSystemPart(messages[0]!)) {
    if (!SystemMessage.isInstance(messages[0])) return false;
    i = 1;
  }
  if (i < messages.length && !HumanMessage.isInstance(messages[i])) return false;
  while (i < messages.length) {
    const message = messages[i++]!;
    if (!BaseMessage.isInstance(message) || isSystemPart(message) || message.type === "tool") return false;
    if (message.type !== "ai") continue;
    for (const call of (message as AIMessage).tool_calls ?? []) {
      const result = messages[i++];
      if (!ToolMessage.isInstance(result) || result.tool_call_id !== (call.id ?? "")) return false;
    }
  }
  return true;
}

/**
 * Make a request provider-valid (plugins/message-coalescing/README.md):
 * - every system part, wherever it is, merged in order into one leading system message;
 * - each assistant message's tool calls answered right after it, in call order, by the
 *   first later result with the call's id (moved up past anything injected in between),
 *   or by a synthetic error result `[no result: the call was interrupted]`;
 * - tool results no earlier call claims (orphans, duplicates) dropped: without their call
 *   a provider rejects them, and their content cannot be attributed;
 * - when the conversation after the system message would start with an assistant (or tool)
 *   message, a hidden user placeholder is put first rather than dropping the assistant's work.
 * Every other message keeps its relative order.
 */
export function coalesceMessages(messages: readonly BaseMessage[]): { messages: BaseMessage[]; repairs: CoalesceRepairs } {
  const systemParts = messages.filter(isSystemPart);
  const rest = messages.filter((m) => !isSystemPart(m));
  const repairs: CoalesceRepairs = {
    mergedSystemParts: systemParts.length > 1 || (systemParts.length === 1 && !isSystemPart(messages[0]!)) ? systemParts.length : 0,
    movedResults: 0,
    droppedOrphans: 0,
    danglingCalls: 0,
    placeholder: false,
  };

  const results = resultsById(rest);
  const claimed = new Set<number>();
  const conversation: BaseMessage[] = [];
  rest.forEach((message, index) => {
    if (ToolMessage.isInstance(message)) {
      if (!claimed.has(index)) repairs.droppedOrphans += 1;
      return;
    }
    conversation.push(message);
    if (!AIMessage.isInstance(message)) return;
    let adjacent = index + 1;
    for (const call of message.tool_calls ?? []) {
      const at = (results.get(call.id ?? "") ?? []).find((i) => i > index && !claimed.has(i));
      if (at === undefined) {
        conversation.push(danglingResult(call));
        repairs.danglingCalls += 1;
        continue;
      }
      claimed.add(at);
      if (at === adjacent) adjacent += 1;
      else repairs.movedResults += 1;
      conversation.push(rest[at]!);
    }
  });

  const opening = conversation[0];
  if (opening && !HumanMessage.isInstance(opening)) {
    conversation.unshift(setKeelMeta(new HumanMessage(OPENING_PLACEHOLDER), { hidden: true }));
    repairs.placeholder = true;
  }
  const system = mergeSystemParts(systemParts);
  return { messages: system ? [system, ...conversation] : conversation, repairs };
}
