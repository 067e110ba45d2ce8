import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { foldHistory, positionOf, type MessageFold } from "../../kernel/loop/history.js";
import { messageText } from "../../kernel/loop/message-meta.js";

/** Characters a message puts into a request: its text plus its tool calls' names and arguments. */
export function messageChars(message: BaseMessage): number {
  let chars = messageText(message).length;
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) chars += call.name.length + JSON.stringify(call.args ?? {}).length;
  }
  return chars;
}

function reportedTokens(message: BaseMessage): number {
  if (!AIMessage.isInstance(message)) return 0;
  const input = message.usage_metadata?.input_tokens ?? 0;
  const output = message.usage_metadata?.output_tokens ?? 0;
  return input > 0 ? input + output : 0;
}

/** Running totals over a history: characters, and the newest message with reported usage (and the characters up to it). */
interface Totals {
  chars: number;
  reportedAt: number;
  reported: number;
  charsThrough: number;
}

/** Kept beside the history by the kernel, so each turn adds the new messages only. */
const totals: MessageFold<Totals> = {
  init: () => ({ chars: 0, reportedAt: -1, reported: 0, charsThrough: 0 }),
  step(state, message, position) {
    const chars = state.chars + messageChars(message);
    const reported = reportedTokens(message);
    return reported > 0 ? { chars, reportedAt: position, reported, charsThrough: chars } : { ...state, chars };
  },
};

/**
 * Tokens the next request will carry, the larger of two estimates:
 * - ⌈characters / 4⌉ over every message (text and tool-call arguments);
 * - the newest assistant message's reported `input_tokens + output_tokens` plus
 *   ⌈characters / 4⌉ of the messages after it. The provider's count includes what the
 *   history alone misses (system prompt, tool schemas, injected data messages), but only
 *   an assistant message produced after the last compaction counts: older ones measured
 *   the history before the cut. `compactedAt` is the newest message id at that cut (null
 *   when the thread was never compacted); when it is no longer found, reported usage is
 *   not trusted at all.
 * Computed from running totals the kernel keeps per history (`foldHistory`): O(new messages) a turn.
 */
export function estimateTokens(messages: readonly BaseMessage[], compactedAt: string | null): number {
  const t = foldHistory(messages, totals);
  const byChars = Math.ceil(t.chars / 4);
  const boundary = compactedAt === null ? -1 : positionOf(messages, compactedAt);
  if (compactedAt !== null && boundary === -1) return byChars;
  if (t.reportedAt > boundary) return Math.max(byChars, t.reported + Math.ceil((t.chars - t.charsThrough) / 4));
  return byChars;
}

/** The same estimate by a full scan of the history (the reference `estimateTokens` must equal). */
export function estimateTokensByScan(messages: readonly BaseMessage[], compactedAt: string | null): number {
  const charTokens = (list: readonly BaseMessage[]) => Math.ceil(list.reduce((sum, m) => sum + messageChars(m), 0) / 4);
  const byChars = charTokens(messages);
  let boundary = -1;
  if (compactedAt !== null) {
    boundary = messages.findIndex((m) => m.id === compactedAt);
    if (boundary === -1) return byChars;
  }
  for (let i = messages.length - 1; i > boundary; i--) {
    const reported = reportedTokens(messages[i]!);
    if (reported > 0) return Math.max(byChars, reported + charTokens(messages.slice(i + 1)));
  }
  return byChars;
}
