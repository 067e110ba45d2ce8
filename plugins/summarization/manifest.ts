import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the summarization options (defaults are applied when the stack is built). */
export const summarizationConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    triggerMessages: {
      type: "integer",
      minimum: 2,
      default: 200,
      description: "Compact when the thread holds more than this many messages. Keep it well above `keepMessages`, or every turn compacts.",
    },
    triggerFraction: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.6,
      description: "Compact when the estimated tokens of the history exceed this fraction of `contextTokens`.",
    },
    contextTokens: {
      type: "integer",
      minimum: 1000,
      description: "The model's context window in tokens (what `triggerFraction` is a fraction of). Default: the model's own (`profile.maxInputTokens`, through the runtime's `model` port), else 128000.",
    },
    keepMessages: {
      type: "integer",
      minimum: 1,
      default: 20,
      description: "Messages kept verbatim after the summary (more when a tool-call block straddles the cut: the cut moves earlier, never splitting it).",
    },
  },
} as const;

/** JSON Schema of the `summary` channel (summary-state.ts, SummaryState). */
export const summaryChannelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["text", "compactions", "summarizedMessages", "lastMessageId", "at", "runId", "agent"],
  properties: {
    text: { type: "string" },
    compactions: { type: "integer", minimum: 1 },
    summarizedMessages: { type: "integer", minimum: 0 },
    lastMessageId: { type: ["string", "null"] },
    at: { type: "string", format: "date-time" },
    runId: { type: "string" },
    agent: { type: "string" },
  },
} as const;

export const summarizationManifest: Manifest = {
  name: "summarization",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Compacts a long history before a model call: older messages become one summary (ctx.summarize) and a tail of recent messages is kept; the first and the latest user request stay verbatim (up to 2,000 characters each), the cut never separates a tool call from its results and the kept history never starts with an assistant or tool message. Writes the summary to `summary`.",
  // Both rewrite `messages` in beforeModel: sanitize cleans the new input first, then the history is compacted.
  requiresBefore: [{ name: "sanitize", optional: true }],
  channels: {
    summary: {
      schema: summaryChannelSchema as unknown as Record<string, unknown>,
      reducer: "replace",
      description: "The latest summary of the compacted history and its bookkeeping (compactions, messages summarized, newest message at the cut).",
    },
  },
  hooks: {
    beforeModel: { observes: ["messages"], mutates: ["messages", "summary"] },
  },
  config: summarizationConfigSchema as unknown as Record<string, unknown>,
};
