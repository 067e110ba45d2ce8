import { SystemMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";

/** System parts: LangChain system messages (OpenAI's `developer` role is a system message with a role hint). */
export function isSystemPart(message: BaseMessage): boolean {
  return message.getType() === "system";
}

type Block = Record<string, unknown>;

function blocksOf(content: MessageContent): Block[] {
  if (typeof content === "string") return content.trim() ? [{ type: "text", text: content }] : [];
  return (content as Array<string | Block>).map((part) => (typeof part === "string" ? { type: "text", text: part } : part));
}

/**
 * One system message from several parts, in order. String parts join with a blank line;
 * when any part has content blocks (e.g. cache-control markers), the blocks are
 * concatenated so nothing a provider adapter reads is lost. Empty parts are dropped.
 * The first part's id and kwargs are kept.
 */
export function mergeSystemParts(parts: readonly BaseMessage[]): SystemMessage | null {
  if (parts.length === 0) return null;
  const first = parts[0]!;
  if (parts.length === 1 && SystemMessage.isInstance(first)) return first;
  const allText = parts.every((p) => typeof p.content === "string");
  const content: MessageContent = allText
    ? parts
        .map((p) => p.content as string)
        .filter((text) => text.trim().length > 0)
        .join("\n\n")
    : (parts.flatMap((p) => blocksOf(p.content)) as MessageContent);
  return new SystemMessage({
    content,
    additional_kwargs: first.additional_kwargs,
    ...(first.id ? { id: first.id } : {}),
  });
}
