import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the read-before-write options (defaults applied when the stack is built). */
export const readBeforeWriteConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    enabled: {
      type: "boolean",
      default: true,
      description: "Refuse write_file/str_replace on an existing file unless the newest read_file of it saw its current content.",
    },
  },
} as const;

export const readBeforeWriteManifest: Manifest = {
  name: "read-before-write",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "read_file results carry a read mark (path, sha256); write_file/str_replace on an existing file are refused unless the newest mark for it matches the file's current hash. Edits of one path are serialized.",
  // Ordering only: receipts must hash, and sanitize must cut, the response this plugin
  // returns (a refusal or a marked read), so both sit outside it.
  requiresBefore: [
    // Every wrap hook reads its request and response: workspace (outside) must be ordered before this one.
    { name: "workspace", optional: true },
    { name: "receipts", optional: true },
    { name: "sanitize", optional: true },
  ],
  // A real dependency: the file checks go through the workspace port.
  requires: ["workspace"],
  hooks: {
    wrapToolCall: { observes: ["messages", "tool.request"], mutates: ["tool.response"] },
  },
  config: readBeforeWriteConfigSchema as unknown as Record<string, unknown>,
};
