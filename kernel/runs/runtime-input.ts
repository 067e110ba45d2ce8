/**
 * A run request's `input` as the agent runtime takes it. Accepted: a string (one user
 * message), LangGraph-style `{ messages: [{ role, content }] }` (or a bare array of
 * such messages, or one message object), and LangChain's serialized messages
 * (`{ lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs: { content } }`,
 * what a BaseMessage becomes once persisted as JSON). Only content, id, name, tool calls
 * and the tool call id are carried over: `additional_kwargs` is where the runtime keeps
 * its own metadata, so a caller's is never taken.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isRecord } from "../../contracts/plain-object.js";
import { KeelError } from "../errors.js";

type MessageFields = Record<string, unknown>;

const ROLE_ALIASES: Record<string, "user" | "assistant" | "system" | "tool"> = {
  user: "user",
  human: "user",
  HumanMessage: "user",
  assistant: "assistant",
  ai: "assistant",
  AIMessage: "assistant",
  system: "system",
  developer: "system",
  SystemMessage: "system",
  tool: "tool",
  ToolMessage: "tool",
};

export function toRuntimeInput(input: unknown): string | BaseMessage[] {
  if (typeof input === "string") return input;
  if (Array.isArray(input)) return input.map((m, i) => toMessage(m, `/input/${i}`));
  if (isRecord(input)) {
    if (Array.isArray(input.messages)) {
      if (input.messages.length === 0) throw invalid("/input/messages", "has no message");
      return input.messages.map((m, i) => toMessage(m, `/input/messages/${i}`));
    }
    if ("role" in input || "type" in input || "lc" in input) return [toMessage(input, "/input")];
  }
  throw invalid("/input", "is neither a string nor `{ messages: [{ role, content }] }`");
}

function toMessage(value: unknown, pointer: string): BaseMessage {
  if (!isRecord(value)) throw invalid(pointer, "is not a message object");
  const serialized = value.lc !== undefined && Array.isArray(value.id) && isRecord(value.kwargs);
  const fields: MessageFields = serialized ? (value.kwargs as MessageFields) : value;
  const roleName = serialized ? String((value.id as unknown[]).at(-1)) : String(value.role ?? value.type ?? "");
  const role = ROLE_ALIASES[roleName];
  if (!role) throw invalid(`${pointer}/role`, `\`${roleName}\` is not a known role (user, assistant, system, tool)`);
  const content = fields.content;
  if (typeof content !== "string" && !Array.isArray(content)) throw invalid(`${pointer}/content`, "must be a string or an array of content parts");
  const common = {
    content: content as string,
    ...(typeof fields.id === "string" ? { id: fields.id } : {}),
    ...(typeof fields.name === "string" ? { name: fields.name } : {}),
  };
  switch (role) {
    case "user":
      return new HumanMessage(common);
    case "system":
      return new SystemMessage(common);
    case "assistant":
      return new AIMessage({ ...common, ...(Array.isArray(fields.tool_calls) ? { tool_calls: fields.tool_calls.map((c, i) => toolCall(c, `${pointer}/tool_calls/${i}`)) } : {}) });
    case "tool": {
      if (typeof fields.tool_call_id !== "string") throw invalid(`${pointer}/tool_call_id`, "is required for a tool message");
      return new ToolMessage({ ...common, tool_call_id: fields.tool_call_id });
    }
  }
}

function toolCall(value: unknown, pointer: string): { id: string; name: string; args: Record<string, unknown>; type: "tool_call" } {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.id !== "string") throw invalid(pointer, "must have a string `id` and `name`");
  return { id: value.id, name: value.name, args: isRecord(value.args) ? value.args : {}, type: "tool_call" };
}

function invalid(pointer: string, why: string): KeelError {
  return new KeelError("KEEL_ERR_RUN_INPUT_INVALID", `the run input at \`${pointer}\` ${why}`, { pointer });
}
