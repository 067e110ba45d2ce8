import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { messageText } from "../../kernel/loop/message-meta.js";

/** Characters a message puts into a request: its text plus its tool calls' names and arguments. */
export function messageChars(message: BaseMessage): number {
  let chars = messageText(message).length;
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) chars += call.name.length + JSON.stringify(call.args ?? {}).length;
  }
  return chars;
}

const charTokens = (messages: readonly BaseMessage[]) => Math.ceil(messages.reduce((sum, m) => sum + messageChars(m), 0) / 4);

function reportedTokens(message: BaseMessage): number {
  if (!AIMessage.isInstance(message)) return 0;
  const input = message.usage_metadata?.input_tokens ?? 0;
  const output = message.usage_metadata?.output_tokens ?? 0;
  return input > 0 ? input + output : 0;
}

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
 */
export function estimateTokens(messages: readonly BaseMessage[], compactedAt: string | null): number {
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
