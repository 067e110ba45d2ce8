import type { Manifest } from "../../kernel/plugin/types.js";
import { FREQUENCY_EXEMPT, MAX_PENDING } from "./tracker.js";

const count = (def: number, description: string) => ({ type: "integer", minimum: 1, default: def, description }) as const;

/** JSON Schema of the loop-detection options (defaults are applied when the stack is built). */
export const loopDetectionConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    warnAt: count(3, "The same tool-call set this many times within `window` tool-call turns → one hidden `[LOOP WARNING]`."),
    hardLimit: count(5, "The same tool-call set this many times within `window` tool-call turns → stop `loop_capped` (forced final answer)."),
    window: count(20, "How many of the latest assistant tool-call messages are compared."),
    toolWarnAt: count(30, "Calls of one tool in a run, whatever the arguments, that raise a warning."),
    toolHardLimit: count(50, "Calls of one tool in a run, whatever the arguments, that stop the run (`loop_capped`)."),
    perTool: {
      type: "object",
      default: {},
      description: "Per-tool overrides of `toolWarnAt` / `toolHardLimit`, by tool name: `{ read_file: { warnAt: 60, hardLimit: 100 } }`.",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: { warnAt: { type: "integer", minimum: 1 }, hardLimit: { type: "integer", minimum: 1 } },
      },
    },
    frequencyExempt: {
      type: "array",
      items: { type: "string", minLength: 1 },
      uniqueItems: true,
      default: [...FREQUENCY_EXEMPT],
      description:
        "Tools the per-tool frequency rule (`toolWarnAt` / `toolHardLimit`) does not count; delegation limits belong to batch-leasing. A `perTool` entry makes a tool count again; repeated identical call sets still count.",
    },
  },
} as const;

/** JSON Schema of the `loop` channel (tracker.ts, LoopState). */
export const loopChannelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["runId", "agent", "lastMessageId", "window", "warnedHashes", "toolCounts", "warnedTools", "pending"],
  properties: {
    runId: { type: "string" },
    agent: { type: "string" },
    lastMessageId: { type: ["string", "null"] },
    window: { type: "array", items: { type: "string" } },
    warnedHashes: { type: "array", items: { type: "string" } },
    toolCounts: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
    warnedTools: { type: "array", items: { type: "string" } },
    pending: { type: "array", maxItems: MAX_PENDING, items: { type: "string" } },
  },
} as const;

export const loopDetectionManifest: Manifest = {
  name: "loop-detection",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Stops an agent that repeats itself: the same tool calls 3 times in the last 20 tool-call turns → a hidden warning, 5 times → stop `loop_capped` with a forced final answer; one tool called 30/50 times → warn/stop (`task` and `return_result` exempt by default).",
  // Both mutate `model.request` in wrapModelCall; batch-leasing may add tool results to `messages` in afterModel.
  requiresBefore: [
    // Every wrap hook reads its request and response: error-fallback (outside) must be ordered before this one.
    { name: "error-fallback", optional: true },
    { name: "receipts", optional: true },
    { name: "tool-progress", optional: true },
    { name: "batch-leasing", optional: true },
    { name: "durable-context", optional: true },
    { name: "subagents", optional: true },
  ],
  channels: {
    loop: {
      schema: loopChannelSchema as unknown as Record<string, unknown>,
      reducer: "replace",
      description: "This agent run's repeat tracking and the warnings waiting for the next model request.",
    },
  },
  hooks: {
    afterModel: { observes: ["messages", "stopReasons"], mutates: ["loop", "stopReasons"] },
    wrapModelCall: { observes: ["loop"], mutates: ["model.request", "loop"] },
  },
  config: loopDetectionConfigSchema as unknown as Record<string, unknown>,
};
