import type { Manifest } from "../../kernel/plugin/types.js";

/** Newest entries `delegations` keeps (the reducer's `keepNewest`, which is manifest data). */
export const LEDGER_ENTRIES = 50;

/** JSON Schema of the subagents options (defaults are applied when the stack is built). */
export const subagentsConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    maxTurns: {
      type: "integer",
      minimum: 1,
      default: 150,
      description: "Turn budget of every child; its `maxTurns`-th model call is the forced final one (only `return_result` bound).",
    },
    timeoutSeconds: {
      type: "number",
      exclusiveMinimum: 0,
      default: 1800,
      description: "Wall-clock limit of one child; a child still running then is cancelled and its task ends `timed_out`.",
    },
    ledgerEntries: {
      type: "integer",
      minimum: LEDGER_ENTRIES,
      maximum: LEDGER_ENTRIES,
      default: LEDGER_ENTRIES,
      description: "Entries `delegations` keeps (newest). Fixed at 50: the bound is the channel reducer's `keepNewest`, which is manifest data.",
    },
  },
} as const;

/** delegation@1 entries; the kernel validates every write against the contract (fail closed). */
const delegationSchema = {
  type: "object",
  description: "delegation@1 (contracts/delegation/v1.ts)",
  required: ["id", "runId", "description", "subagentType", "status", "createdAt"],
} as const;

export const subagentsManifest: Manifest = {
  name: "subagents",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "The `task` tool: runs a child from the subagent stack (own checkpoints, budget, the parent's AbortSignal), gives it `return_result`, maps its end to subagent-return@1 (fail loudly or accept partial by rule), checks its citations and acceptance criteria, and keeps the `delegations` ledger.",
  // All of them read or edit the tool request/response in wrapToolCall (and sanitize rewrites
  // `messages` in beforeAgent): this plugin swaps the `task` call's tool and annotates its result.
  requiresBefore: [
    // Every wrap hook reads its request and response: workspace, error-fallback (outside) must be ordered before this one.
    { name: "workspace", optional: true },
    { name: "error-fallback", optional: true },
    { name: "receipts", optional: true },
    { name: "sanitize", optional: true },
    { name: "read-before-write", optional: true },
    { name: "tool-progress", optional: true },
  ],
  channels: {
    delegations: {
      schema: { type: "array", items: delegationSchema },
      reducer: { kind: "merge-by-id", key: "id", guard: "no-terminal-downgrade", keepNewest: LEDGER_ENTRIES },
      contract: "delegation@1",
      // The verdicts a finished child's entry carries are evidence too: a caller cannot forge them.
      runtimeOwned: true,
      runtimeOwnedFields: ["receiptVerdict", "acceptanceVerdict"],
      description: "The delegation ledger: one delegation@1 per `task` call (in_progress when granted, terminal when it ends), oldest first, newest 50 kept.",
    },
  },
  contracts: { produces: ["delegation@1", "subagent-return@1"] },
  hooks: {
    beforeAgent: { observes: ["messages", "delegations"], mutates: ["delegations"] },
    // Appends the delegation section to the lead's system message, in the request only.
    wrapModelCall: { mutates: ["model.request"] },
    afterModel: { observes: ["messages", "delegations", { name: "leases", optional: true }], mutates: ["delegations"] },
    wrapToolCall: {
      observes: ["tool.request", "delegations", { name: "leases", optional: true }],
      mutates: ["tool.request", "tool.response", "delegations"],
    },
    afterAgent: { observes: ["messages", "delegations"], mutates: ["delegations"] },
  },
  config: subagentsConfigSchema as unknown as Record<string, unknown>,
};
