import type { Manifest } from "../../kernel/plugin/types.js";

/** Default render budget of the ledger message, in characters (header included). */
export const LEDGER_CHARS = 2000;

/** JSON Schema of the receipts options (defaults are applied when the stack is built). */
export const receiptsConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    enabled: {
      type: "boolean",
      default: true,
      description: "`false`: the plugin does nothing (no receipts stamped, no ledger shown).",
    },
    render: {
      enum: ["always", "delegation_only"],
      default: "always",
      description:
        "When the ledger is shown: `always` (every model call once the run has a receipt; the subagent stack) or `delegation_only` (only once the agent has delegated: a `task` call in the request or a `task` receipt in this run; the lead stack).",
    },
    ledgerChars: {
      type: "integer",
      minimum: 500,
      default: LEDGER_CHARS,
      description: "Budget of the whole ledger message in characters; the newest receipt lines that fit are kept.",
    },
  },
} as const;

/** One receipt@1 as kept in `receipts` (the kernel validates every write against the contract). */
const receiptSchema = {
  type: "object",
  description: "receipt@1 (contracts/receipt/v1.ts)",
  required: ["id", "toolCallId", "tool", "status", "argsSha256", "outputSha256", "bytes", "createdAt"],
} as const;

/** Where the current agent run's receipts start in `receipts` (set by beforeAgent). */
export const receiptRunSchema = {
  type: "object",
  additionalProperties: false,
  required: ["runId", "agent", "start"],
  properties: {
    runId: { type: "string" },
    agent: { type: "string" },
    start: { type: "integer", minimum: 0 },
  },
} as const;

export const receiptsManifest: Manifest = {
  name: "receipts",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Stamps a receipt@1 for every tool call (runtime-owned, tools cannot forge it), shows the run's receipts to the model as a hidden ledger, and checks report citations against them.",
  channels: {
    receipts: {
      schema: { type: "array", items: receiptSchema },
      reducer: "append",
      contract: "receipt@1",
      runtimeOwned: true,
      description: "Every tool call's receipt@1, oldest first; this agent run's receipts start at `receiptRun.start`.",
    },
    receiptRun: {
      schema: receiptRunSchema,
      reducer: "replace",
      runtimeOwned: true,
      description: "`{ runId, agent, start }`: the index in `receipts` where the current agent run's receipts begin (ids restart at r1 per run).",
    },
  },
  contracts: { produces: ["receipt@1", "receipt-verdict@1"] },
  // The citation check of a finished child's report, for the subagents plugin (kernel/ports/agents.ts).
  provides: ["receipts"],
  hooks: {
    beforeAgent: { observes: ["receipts"], mutates: ["receiptRun"] },
    wrapToolCall: { observes: ["tool.request", "tool.response", "receiptRun"], mutates: ["receipts"] },
    wrapModelCall: { observes: ["receipts", "receiptRun"], mutates: ["model.request", "model.response"] },
  },
  config: receiptsConfigSchema as unknown as Record<string, unknown>,
};
