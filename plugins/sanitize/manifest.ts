import type { Manifest } from "../../kernel/plugin/types.js";

/** Default cap of one tool output, in characters (marker included). */
export const MAX_TOOL_OUTPUT_CHARS = 50000;

/** JSON Schema of the sanitize options (defaults are applied when the stack is built). */
export const sanitizeConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    maxToolOutputChars: {
      type: "integer",
      minimum: 1000,
      default: MAX_TOOL_OUTPUT_CHARS,
      description: "Cap of one tool output in characters: longer outputs keep their head and tail, the middle is replaced by a marker saying how much was elided.",
    },
  },
} as const;

export const sanitizeManifest: Manifest = {
  name: "sanitize",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Neutralizes framework markers (<system-reminder>, <durable_context_data>, receipt ledger headers, …) in user input and tool output, and caps one tool output at 50,000 characters.",
  // Inside receipts: a receipt hashes the output the model actually sees.
  requiresBefore: [{ name: "workspace", optional: true }, { name: "receipts", optional: true }],
  hooks: {
    beforeAgent: { mutates: ["messages"] },
    beforeModel: { mutates: ["messages"] },
    wrapToolCall: { mutates: ["tool.response"] },
  },
  config: sanitizeConfigSchema as unknown as Record<string, unknown>,
};
