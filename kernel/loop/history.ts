import type { BaseMessage } from "@langchain/core/messages";
import { foldMessages, messageIndex, type MessageFold, type MessageIndex } from "../channels/message-index.js";
import { unguard } from "./enforcement.js";

/**
 * Incremental reads of a hook's `messages` (the view it was handed, guarded or not): the
 * kernel keeps an index and fold states beside each history as it grows by appends, so a
 * plugin that looks at the whole history every turn pays for the new messages only.
 */

/** `fold` over every message, resumed from where it stopped on this history's earlier, shorter versions. */
export function foldHistory<T>(messages: readonly BaseMessage[], fold: MessageFold<T>): T {
  return foldMessages(unguard(messages), fold);
}

/** The history's index: message positions by id, answered tool calls. */
export function historyIndex(messages: readonly BaseMessage[]): MessageIndex {
  return messageIndex(unguard(messages));
}

/** Position of the message with `id` (the first one when ids repeat), or -1. */
export function positionOf(messages: readonly BaseMessage[], id: string): number {
  const positions = historyIndex(messages).positions;
  if (positions) return positions.get(id) ?? -1;
  return messages.findIndex((m) => m.id === id);
}

export type { MessageFold, MessageIndex };
