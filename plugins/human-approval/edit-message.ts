import { AIMessage } from "@langchain/core/messages";

/**
 * The AI message with some of its tool calls' arguments replaced (by call id), and the
 * provider's raw copies of those calls (OpenAI `additional_kwargs.tool_calls`, Anthropic
 * `tool_use` content blocks) changed alike, so every view of the message agrees. Same id:
 * the messages reducer replaces the old one.
 */
export function withEditedArgs(message: AIMessage, edited: ReadonlyMap<string, Record<string, unknown>>): AIMessage {
  const calls = (message.tool_calls ?? []).map((c) => (c.id !== undefined && edited.has(c.id) ? { ...c, args: edited.get(c.id)! } : c));
  const content = Array.isArray(message.content)
    ? (message.content as Array<Record<string, unknown>>).map((b) => (b.type === "tool_use" && edited.has(b.id as string) ? { ...b, input: edited.get(b.id as string) } : b))
    : message.content;
  const raw = message.additional_kwargs?.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: string } }> | undefined;
  const rawCalls = raw?.map((c) => (c.id !== undefined && edited.has(c.id) && c.function ? { ...c, function: { ...c.function, arguments: JSON.stringify(edited.get(c.id)) } } : c));
  return new AIMessage({
    id: message.id,
    content: content as AIMessage["content"],
    tool_calls: calls,
    invalid_tool_calls: message.invalid_tool_calls ?? [],
    additional_kwargs: rawCalls ? { ...message.additional_kwargs, tool_calls: rawCalls as never } : { ...message.additional_kwargs },
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    ...(message.name ? { name: message.name } : {}),
  });
}
