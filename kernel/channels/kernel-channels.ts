import type { ChannelReducer } from "../compose/types.js";

export interface KernelChannelSpec {
  name: string;
  reducer: ChannelReducer;
  schema: Record<string, unknown>;
  readOnly?: boolean;
  description: string;
}

/** Stop reason entry as kept in the `stopReasons` channel (status@2 stop reason + the request). */
export const STOP_REASON_SCHEMA = {
  type: "object",
  required: ["reason", "by"],
  properties: {
    reason: { type: "string", minLength: 1 },
    by: { type: "string", minLength: 1 },
    turn: { type: "integer", minimum: 0 },
    detail: { type: "string" },
    limit: {
      type: "object",
      required: ["type", "value"],
      properties: { type: { enum: ["turns", "tokens", "calls", "subagents", "seconds"] }, value: { type: "number" } },
      additionalProperties: false,
    },
    request: { enum: ["final", "end", "none"] },
  },
  additionalProperties: false,
} as const;

/**
 * Channels the kernel owns. `stopReasons` is an append-set keyed by (reason, by): guards
 * writing it commute, so they never race. The `model.*` and `tool.*` pseudo-channels name
 * the request/response that wrap hooks touch, so the race check covers them too.
 */
export const KERNEL_CHANNELS: readonly KernelChannelSpec[] = [
  { name: "messages", reducer: "messages", schema: { type: "array" }, description: "The conversation (LangGraph messages reducer)." },
  {
    name: "stopReasons",
    reducer: { kind: "append-set", key: ["reason", "by"] },
    schema: { type: "array", items: STOP_REASON_SCHEMA },
    description: "Stop reasons in the order they happened; an entry with `request` asks the kernel to stop.",
  },
  { name: "usage", reducer: "sum", schema: { type: "object" }, description: "Token usage per agent path (summed)." },
  { name: "runMeta", reducer: "replace", schema: { type: "object" }, readOnly: true, description: "Run identity (read-only)." },
  { name: "model.request", reducer: "replace", schema: { type: "object" }, description: "The model request inside wrapModelCall." },
  { name: "model.response", reducer: "replace", schema: { type: "object" }, description: "The model response inside wrapModelCall." },
  { name: "tool.request", reducer: "replace", schema: { type: "object" }, description: "The tool call inside wrapToolCall." },
  { name: "tool.response", reducer: "replace", schema: { type: "object" }, description: "The tool result inside wrapToolCall." },
];

export const PSEUDO_CHANNELS = new Set(["model.request", "model.response", "tool.request", "tool.response"]);

/** Contracts the kernel itself produces (consumers of these need no producing plugin). */
export const KERNEL_PRODUCES = ["status@2", "stream-event@1", "journal-entry@1", "run-report@1", "run-report@2"] as const;
