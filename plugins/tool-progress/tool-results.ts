import { ToolMessage } from "@langchain/core/messages";
import { messageText } from "../../kernel/loop/message-meta.js";
import type { ToolCall } from "../../kernel/plugin/types.js";

export const BLOCKED_PREFIX = "[TOOL_BLOCKED]";

/** The error result of a call refused because its tool is blocked (the tool did not run). */
export function refusedResult(toolCall: ToolCall, reason: string): ToolMessage {
  return new ToolMessage({
    id: `${toolCall.id}:result`,
    tool_call_id: toolCall.id,
    name: toolCall.name,
    content: `${BLOCKED_PREFIX} ${reason}`,
    status: "error",
  });
}

/** A copy of `message` with new text content (and status), keeping ids, artifact and metadata. */
function withContent(message: ToolMessage, content: string, status: "success" | "error"): ToolMessage {
  return new ToolMessage({
    ...(message.id === undefined ? {} : { id: message.id }),
    tool_call_id: message.tool_call_id,
    ...(message.name === undefined ? {} : { name: message.name }),
    content,
    status,
    ...(message.artifact === undefined ? {} : { artifact: message.artifact }),
    additional_kwargs: message.additional_kwargs ?? {},
    response_metadata: message.response_metadata ?? {},
  });
}

/** The result of the call that blocked its tool: the block notice first, then what the call returned. */
export function blockingResult(message: ToolMessage, reason: string): ToolMessage {
  return withContent(message, `${BLOCKED_PREFIX} ${reason}\n\nThis call's result:\n${messageText(message)}`, "error");
}

