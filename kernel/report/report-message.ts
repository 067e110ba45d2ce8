import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isHidden, messageText } from "../loop/message-meta.js";

export interface ReportMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  hidden: boolean;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
  status?: "success" | "error";
}

const ROLES: Record<string, ReportMessage["role"]> = { system: "system", human: "user", ai: "assistant", tool: "tool", developer: "system" };

/** The run-report@1 message shape: what a provider sees, with injected data messages marked hidden. */
export function toReportMessage(message: BaseMessage): ReportMessage {
  const out: ReportMessage = { role: ROLES[message.getType()] ?? "user", content: messageText(message), hidden: isHidden(message) };
  if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) {
    out.toolCalls = message.tool_calls!.map((c) => ({ id: c.id ?? "", name: c.name, args: (c.args ?? {}) as Record<string, unknown> }));
  }
  if (ToolMessage.isInstance(message)) {
    out.toolCallId = message.tool_call_id;
    out.status = message.status ?? "success";
  }
  return out;
}
