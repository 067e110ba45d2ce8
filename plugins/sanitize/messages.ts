import { HumanMessage, ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import { capToolOutput } from "./cap-output.js";
import { neutralizeFrameworkText } from "./neutralize.js";

type Part = string | { type?: string; text?: unknown; [key: string]: unknown };

/** Apply `edit` to every text of a message content; returns null when nothing changed. */
function editContent(content: MessageContent, edit: (text: string) => string): MessageContent | null {
  if (typeof content === "string") {
    const next = edit(content);
    return next === content ? null : next;
  }
  if (!Array.isArray(content)) return null;
  let changed = false;
  const parts = (content as Part[]).map((part) => {
    if (typeof part === "string") {
      const next = edit(part);
      changed ||= next !== part;
      return next;
    }
    if (part?.type === "text" && typeof part.text === "string") {
      const next = edit(part.text);
      if (next === part.text) return part;
      changed = true;
      return { ...part, text: next };
    }
    return part;
  });
  return changed ? (parts as MessageContent) : null;
}

/**
 * The user messages whose text holds framework markers, rebuilt neutralized with the same
 * ids (the messages reducer then replaces them in place). Only changed messages are returned.
 */
export function sanitizeHumanMessages(messages: readonly BaseMessage[]): HumanMessage[] {
  const out: HumanMessage[] = [];
  for (const message of messages) {
    if (!HumanMessage.isInstance(message) || message.id === undefined) continue;
    const content = editContent(message.content, neutralizeFrameworkText);
    if (content === null) continue;
    out.push(
      new HumanMessage({
        id: message.id,
        content,
        additional_kwargs: message.additional_kwargs,
        response_metadata: message.response_metadata,
        ...(message.name ? { name: message.name } : {}),
      }),
    );
  }
  return out;
}

/** Neutralize, then cap at `max` characters: one string, or the text parts joined (other parts kept after it). */
export function sanitizeToolMessage(message: ToolMessage, max: number): ToolMessage {
  let content = editContent(message.content, neutralizeFrameworkText) ?? message.content;
  if (typeof content === "string") {
    content = capToolOutput(content, max);
  } else if (Array.isArray(content)) {
    const parts = content as Part[];
    const texts = parts.map((p) => (typeof p === "string" ? p : p?.type === "text" && typeof p.text === "string" ? p.text : null));
    const joined = texts.filter((t): t is string => t !== null).join("");
    if (joined.length > max) {
      const others = parts.filter((_, i) => texts[i] === null);
      content = [{ type: "text", text: capToolOutput(joined, max) }, ...others] as MessageContent;
    }
  }
  if (content === message.content) return message;
  return new ToolMessage({
    id: message.id,
    tool_call_id: message.tool_call_id,
    content,
    status: message.status ?? "success",
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    ...(message.name ? { name: message.name } : {}),
    ...(message.artifact === undefined ? {} : { artifact: message.artifact }),
  });
}
