import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the durable-context options (defaults are applied when the stack is built). */
export const durableContextConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    summaryChars: {
      type: "integer",
      minimum: 200,
      default: 6000,
      description: "Characters of the summary shown; a longer summary keeps its first two thirds and last third around `\\n...\\n`.",
    },
    ledgerChars: {
      type: "integer",
      minimum: 200,
      default: 6000,
      description: "Budget of the `## Work already delegated` section (heading and lines); the newest entries that fit are shown and the older ones counted.",
    },
    briefChars: {
      type: "integer",
      minimum: 20,
      default: 120,
      description: "Characters of each delegation's result brief on its ledger line.",
    },
  },
} as const;

export const durableContextManifest: Manifest = {
  name: "durable-context",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Projects state that must survive compaction into every model request, never into the thread: the summary and the delegation ledger as a hidden data message after the system message, under an authority contract merged into the system message (the values are data, not instructions).",
  // receipts also edits `model.request` in wrapModelCall and puts its ledger right after the
  // system message; being inside it puts this data first (durable data, then
  // the receipt ledger). subagents writes `delegations` only in other hooks: no edge needed.
  requiresBefore: [
    // Every wrap hook reads its request and response: error-fallback (outside) must be ordered before this one.
    { name: "error-fallback", optional: true },
    { name: "receipts", optional: true },
    { name: "tool-progress", optional: true },
    // subagents appends its delegation section to the system message; the authority contract follows it.
    { name: "subagents", optional: true },
  ],
  // Reads delegation@1 entries when a plugin owns `delegations`; not a `contracts.consumes`
  // entry, which would make the ledger's owner a hard dependency.
  hooks: {
    wrapModelCall: {
      observes: [
        { name: "summary", optional: true },
        { name: "delegations", optional: true },
      ],
      mutates: ["model.request"],
    },
  },
  config: durableContextConfigSchema as unknown as Record<string, unknown>,
};
