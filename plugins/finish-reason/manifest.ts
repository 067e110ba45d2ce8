import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the finish-reason options (defaults are applied when the stack is built). */
export const finishReasonConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    safety: {
      type: "boolean",
      default: true,
      description:
        "A safety finish (content_filter, refusal, SAFETY, …) ends the run: `safety_capped`. Tool calls are stripped (never run, never counted by loop-detection); text without tool calls is kept as the answer (outcome `partial`).",
    },
    length: {
      type: "boolean",
      default: true,
      description: "A length finish (length, max_tokens, MAX_TOKENS) on a response with tool calls strips them and forces a final answer: `model_length_capped`.",
    },
  },
} as const;

export const finishReasonManifest: Manifest = {
  name: "finish-reason",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Acts on the provider's raw finish reason: a safety stop ends the run (`safety_capped`; its tool calls never run, its text is a `partial` answer); a length stop inside tool calls strips them and forces a final answer (`model_length_capped`).",
  // after* hooks run in reverse order: being after loop-detection, finish-reason sees the raw
  // response first. batch-leasing may add tool results to `messages` in afterModel.
  requiresBefore: [
    { name: "batch-leasing", optional: true },
    { name: "loop-detection", optional: true },
  ],
  hooks: {
    afterModel: { observes: ["messages"], mutates: ["stopReasons"] },
  },
  config: finishReasonConfigSchema as unknown as Record<string, unknown>,
};
