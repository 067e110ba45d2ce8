import type { Manifest } from "../../kernel/plugin/types.js";

/** Default render budget of the ledger message, in characters (header included). */
export const LEDGER_CHARS = 2000;

/** Default number of the newest receipts `receipts` keeps in state (option `keepInState`). */
export const KEEP_IN_STATE = 100;

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
    keepInState: {
      type: "integer",
      minimum: 1,
      default: KEEP_IN_STATE,
      description:
        "Newest receipts `receipts` keeps in state (older ones stay citable through `receiptIndex`, and every call is in the journal). The ledger shows only kept receipts.",
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
    delegationsAtStart: { type: "integer", minimum: 0 },
  },
} as const;

/** Receipts stamped on the thread, by status, and `task` receipts (`sum` reducer). */
const receiptCountsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    total: { type: "integer", minimum: 0 },
    success: { type: "integer", minimum: 0 },
    error: { type: "integer", minimum: 0 },
    delegations: { type: "integer", minimum: 0 },
  },
} as const;

/** `"<id> <tool>"` or `"<id> <tool> error"`: one per receipt, whatever the call's size. */
const receiptIndexSchema = { type: "array", items: { type: "string", pattern: "^r\\d+ [^ ]+(?: error)?$" } } as const;

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
      reducer: { kind: "append", keepNewest: KEEP_IN_STATE, keepNewestOption: "keepInState" },
      contract: "receipt@1",
      runtimeOwned: true,
      description: "The newest `keepInState` tool-call receipts (receipt@1), oldest first.",
    },
    receiptCounts: {
      schema: receiptCountsSchema,
      reducer: "sum",
      runtimeOwned: true,
      description: "`{ total, success, error, delegations }`: receipts stamped on the thread, by status, and `task` receipts.",
    },
    receiptIndex: {
      schema: receiptIndexSchema,
      reducer: "append",
      runtimeOwned: true,
      description: "One `\"<id> <tool>[ error]\"` entry per receipt of the thread, oldest first: what a citation check needs of receipts no longer kept.",
    },
    receiptRun: {
      schema: receiptRunSchema,
      reducer: "replace",
      runtimeOwned: true,
      description: "`{ runId, agent, start, delegationsAtStart }`: the thread's receipt count when the current agent run began (ids restart at r1 per run).",
    },
  },
  contracts: { produces: ["receipt@1", "receipt-verdict@1"] },
  // The citation check of a finished child's report, for the subagents plugin (kernel/ports/agents.ts).
  provides: ["receipts"],
  hooks: {
    beforeAgent: { observes: ["receipts", "receiptCounts"], mutates: ["receiptRun", "receiptCounts"] },
    wrapToolCall: { observes: ["tool.request", "tool.response", "receiptRun", "receiptCounts"], mutates: ["receipts", "receiptCounts", "receiptIndex"] },
    wrapModelCall: { observes: ["receipts", "receiptRun", "receiptCounts"], mutates: ["model.request", "model.response"] },
  },
  config: receiptsConfigSchema as unknown as Record<string, unknown>,
};
