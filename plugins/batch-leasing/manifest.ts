import type { Manifest } from "../../kernel/plugin/types.js";

const tokens = (def: number, description: string) => ({ type: "integer", minimum: 1, default: def, description }) as const;

/** JSON Schema of the batch-leasing options (defaults are applied when the stack is built). */
export const batchLeasingConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    concurrency: { type: "integer", default: 3, description: "`task` calls granted per assistant message (children running at once); clamped to 2–4 (a configured 1 grants 2)." },
    total: { type: "integer", default: 6, description: "Children one run may start; clamped to 1–50." },
    budget: tokens(3_000_000, "The run's shared child token budget: granted allowances are reserved from it, and what a child does not use returns when it ends."),
    minAllowance: tokens(50_000, "A call is fundable only while the remaining shared budget is at least this; every allowance is at least this."),
    leaseTtlMs: {
      type: "integer",
      minimum: 10,
      default: 60_000,
      description: "A lease expires when its child made no progress (no finished model or tool call) for this long; the task then ends failed with `lease_expired`.",
    },
    heartbeatMs: { type: "integer", minimum: 10, default: 10_000, description: "How often a live lease is checked for expiry (at most the TTL)." },
  },
} as const;

/** One lease@1 as kept in `leases` (the kernel validates every write against the contract). */
const leaseSchema = {
  type: "object",
  description: "lease@1 (contracts/lease/v1.ts)",
  required: ["leaseId", "runId", "taskId", "owner", "epoch", "tokenAllowance", "returnReserve", "grantedAt", "expiresAt", "state"],
} as const;

const limitSchema = {
  type: "object",
  additionalProperties: false,
  required: ["type", "value"],
  properties: { type: { enum: ["tokens", "subagents"] }, value: { type: "number" } },
} as const;

/** The latest batch's decisions, for the tools step to answer refused calls. */
export const leaseBatchSchema = {
  type: "object",
  additionalProperties: false,
  required: ["runId", "turn", "granted", "refused"],
  properties: {
    runId: { type: "string" },
    turn: { type: "integer", minimum: 0 },
    granted: { type: "array", items: { type: "string" } },
    refused: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["taskId", "reason", "detail", "limit", "text"],
        properties: {
          taskId: { type: "string" },
          reason: { enum: ["subagent_limit_capped", "budget_exceeded"] },
          detail: { type: "string" },
          limit: limitSchema,
          text: { type: "string" },
        },
      },
    },
  },
} as const;

export const LEASES_KEPT = 100;

export const batchLeasingManifest: Manifest = {
  name: "batch-leasing",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Bounds delegation: the `task` calls of one assistant message are a batch; each granted call gets a lease@1 (token allowance from the run's shared budget, return reserve, epoch, heartbeat expiry), and refused calls are answered with `subagent_limit_capped` / `budget_exceeded`, never dropped.",
  // They read or edit the tool request/response in wrapToolCall; subagents writes `delegations`
  // in afterModel/afterAgent, which this plugin writes (refusals) and reads (usage) before it.
  requiresBefore: [
    // Every wrap hook reads its request and response: workspace (outside) must be ordered before this one.
    { name: "workspace", optional: true },
    { name: "receipts", optional: true },
    { name: "sanitize", optional: true },
    { name: "read-before-write", optional: true },
    { name: "tool-progress", optional: true },
    { name: "subagents", optional: true },
  ],
  provides: ["lease-keeper"],
  channels: {
    leases: {
      schema: { type: "array", items: leaseSchema },
      reducer: { kind: "merge-by-id", key: "leaseId", keepNewest: LEASES_KEPT },
      contract: "lease@1",
      runtimeOwned: true,
      description: "Every granted lease (active, released, expired, revoked), oldest first; the newest 100 are kept.",
    },
    leaseBatch: {
      schema: leaseBatchSchema as unknown as Record<string, unknown>,
      reducer: "replace",
      description: "The latest batch: granted task ids and the refusals the tools step answers.",
    },
  },
  contracts: { produces: ["lease@1"] },
  hooks: {
    beforeAgent: { observes: ["leases"], mutates: ["leases"] },
    afterModel: {
      observes: ["messages", "stopReasons", "leases", { name: "delegations", optional: true }],
      mutates: ["leases", "leaseBatch", { name: "delegations", optional: true }],
    },
    wrapToolCall: { observes: ["tool.request", "leaseBatch"], mutates: ["tool.response", "stopReasons"] },
    afterAgent: { observes: ["leases", { name: "delegations", optional: true }], mutates: ["leases"] },
  },
  config: batchLeasingConfigSchema as unknown as Record<string, unknown>,
};
