import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/**
 * What every provider accepts (the strictest common rules): at most one system message and
 * only first; then user content first; every assistant tool call answered by a result right
 * after its assistant message, in call order; no tool result anywhere else.
 * Returns the first violation, or null.
 */
export function providerViolation(messages: readonly BaseMessage[]): string | null {
  const systems = messages.filter((m) => m.getType() === "system").length;
  if (systems > 1) return `${systems} system messages`;
  if (systems === 1 && messages[0]!.getType() !== "system") return "the system message is not first";
  const conversation = messages.slice(systems);
  if (conversation.length > 0 && conversation[0]!.getType() !== "human") return `the conversation starts with ${conversation[0]!.getType()}`;
  for (let i = 0; i < conversation.length; i++) {
    const m = conversation[i]!;
    if (m.getType() === "tool") return `orphan tool result at ${i}`;
    if (!AIMessage.isInstance(m)) continue;
    const calls = m.tool_calls ?? [];
    for (const [n, call] of calls.entries()) {
      const result = conversation[i + 1 + n] as { tool_call_id?: string } | undefined;
      if (!result || conversation[i + 1 + n]!.getType() !== "tool" || result.tool_call_id !== call.id) return `call ${call.id} at ${i} is not answered right after it`;
    }
    i += calls.length;
  }
  return null;
}

export const isProviderValid = (messages: readonly BaseMessage[]) => providerViolation(messages) === null;
