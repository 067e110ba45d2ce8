import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { isHidden, keelMeta, messageText, setKeelMeta } from "../../kernel/loop/message-meta.js";
import { isSummaryMarker } from "./summary-marker.js";

/** How much of a pinned user request stays verbatim; the rest is left to the summary. */
export const PINNED_REQUEST_CHARS = 2000;

/** Keel metadata key of a request clipped by an earlier compaction: `{ chars }`, its original length. */
export const CLIPPED_REQUEST_META = "clippedRequest";

/** A user request: a human message the user wrote (not a hidden injected message, not a summary). */
export function isUserRequest(message: BaseMessage): boolean {
  return HumanMessage.isInstance(message) && !isHidden(message) && !isSummaryMarker(message);
}

/** Indexes of the first and the latest user request (the same index when there is one; null when none). */
export function taskRequestIndexes(messages: readonly BaseMessage[]): { first: number; latest: number } | null {
  const first = messages.findIndex(isUserRequest);
  if (first < 0) return null;
  let latest = first;
  for (let i = messages.length - 1; i > first; i--) {
    if (isUserRequest(messages[i]!)) {
      latest = i;
      break;
    }
  }
  return { first, latest };
}

/**
 * The request as it stays in the thread: itself when its text fits in
 * `PINNED_REQUEST_CHARS`, else its first `PINNED_REQUEST_CHARS` characters verbatim and a
 * note (same id, so a later compaction pins the clipped one again, unchanged).
 */
export function pinnedRequest(message: BaseMessage): BaseMessage {
  const text = messageText(message);
  if (text.length <= PINNED_REQUEST_CHARS || keelMeta(message)[CLIPPED_REQUEST_META] !== undefined) return message;
  const note = `\n[… ${text.length - PINNED_REQUEST_CHARS} more characters of this request are covered by the summary]`;
  const clipped = new HumanMessage({
    content: `${text.slice(0, PINNED_REQUEST_CHARS)}${note}`,
    additional_kwargs: message.additional_kwargs,
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
  });
  return setKeelMeta(clipped, { [CLIPPED_REQUEST_META]: { chars: text.length } });
}
