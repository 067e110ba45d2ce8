import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the tool-progress options (defaults are applied when the stack is built). */
export const toolProgressConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    warnAfter: { type: "integer", minimum: 1, default: 3, description: "Consecutive problem results of one tool after which the model gets a hint." },
    blockAfter: { type: "integer", minimum: 1, default: 5, description: "The consecutive problem result that blocks the tool for the rest of the run." },
    similarity: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.8,
      description: "Jaccard index of word sets at or above which a successful result repeats one of the tool's last 3 results.",
    },
  },
} as const;

const sketchSchema = {
  type: "object",
  additionalProperties: false,
  required: ["n", "h"],
  properties: { n: { type: "integer", minimum: 0 }, h: { type: "array", items: { type: "integer", minimum: 0 } } },
} as const;

/** JSON Schema of the `toolProgress` channel value. */
export const toolProgressChannelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["tools", "hints"],
  properties: {
    tools: {
      type: "object",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        required: ["status", "problems", "recent"],
        properties: {
          status: { enum: ["active", "warned", "blocked"] },
          problems: { type: "integer", minimum: 0 },
          recent: { type: "array", maxItems: 3, items: { anyOf: [sketchSchema, { type: "null" }] } },
          reason: { type: "string" },
          blockedRunId: { type: "string" },
        },
      },
    },
    hints: {
      type: "object",
      additionalProperties: false,
      required: ["runId", "count"],
      properties: {
        runId: { type: "string" },
        count: { type: "integer", minimum: 0 },
        pending: { type: "array", maxItems: 3, items: { type: "string" } },
      },
    },
  },
} as const;

export const toolProgressManifest: Manifest = {
  name: "tool-progress",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Per (thread, tool) progress: a tool that fails or repeats itself gets a hint (a hidden message at the end of the next model request) after 3 consecutive problems and is blocked after the 5th (auth/config errors block at once); blocked calls return [TOOL_BLOCKED] without running and record the stop reason progress_blocked.",
  // These rewrite or read the tool result in wrapToolCall; they stay outside this plugin.
  requiresBefore: [
    // Every wrap hook reads its request and response: workspace (outside) must be ordered before this one.
    { name: "workspace", optional: true },
    { name: "error-fallback", optional: true },
    { name: "receipts", optional: true },
    { name: "sanitize", optional: true },
    { name: "read-before-write", optional: true },
  ],
  channels: {
    toolProgress: {
      schema: toolProgressChannelSchema as unknown as Record<string, unknown>,
      reducer: "replace",
      description: "Per tool of the thread: active | warned | blocked, consecutive problems, word sketches of the last 3 results; hints given in the current run.",
    },
  },
  hooks: {
    wrapToolCall: { observes: ["tool.request"], mutates: ["toolProgress", "tool.response", "stopReasons"] },
    // The hints waiting in `toolProgress` go at the end of the next model request, as one hidden user message.
    wrapModelCall: { mutates: ["model.request", "toolProgress"] },
  },
  config: toolProgressConfigSchema as unknown as Record<string, unknown>,
};
