import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the token-budget options (defaults are applied when the stack is built). */
export const tokenBudgetConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    enabled: { type: "boolean", default: true, description: "Switch the budget off without removing the plugin." },
    limit: {
      type: "integer",
      minimum: 1,
      default: 200000,
      description: "Tokens (input + output) this agent run may use. Lead default 200,000; a subagent stack's default is derived when it is built (1,000,000 with summarization, 2,000,000 without), and a lease's allowance replaces it for a child.",
    },
    warnAt: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.7,
      description: "Fraction of `limit` at which the run is warned once (guard event + a hidden message in the next request).",
    },
    returnReserve: {
      type: "number",
      minimum: 0,
      exclusiveMaximum: 1,
      default: 0.15,
      description: "Fraction of `limit` held back for the forced final answer: the stop is requested at 1 − returnReserve.",
    },
  },
} as const;

/** JSON Schema of the `budget` channel (ledger.ts, BudgetState). */
export const budgetChannelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["runId", "agent", "baselineLastId", "counted", "inputTokens", "outputTokens", "totalTokens", "warnedTurn", "cappedTurn"],
  properties: {
    runId: { type: "string" },
    agent: { type: "string" },
    baselineLastId: { type: ["string", "null"] },
    counted: { type: "array", items: { type: "string" } },
    inputTokens: { type: "integer", minimum: 0 },
    outputTokens: { type: "integer", minimum: 0 },
    totalTokens: { type: "integer", minimum: 0 },
    warnedTurn: { type: ["integer", "null"] },
    cappedTurn: { type: ["integer", "null"] },
  },
} as const;

export const tokenBudgetManifest: Manifest = {
  name: "token-budget",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  provides: ["token-allowance"],
  description:
    "Caps the tokens of one agent run: warns once at 70 % of `limit`, and at 85 % requests the stop `token_capped` (tools withdrawn, one forced final answer paid from the 15 % reserve).",
  // sanitize rewrites `messages` in beforeAgent; receipts, durable-context and loop-detection
  // edit `model.request` in wrapModelCall; batch-leasing may add tool results to `messages` in afterModel.
  requiresBefore: [
    // Every wrap hook reads its request and response: error-fallback (outside) must be ordered before this one.
    { name: "error-fallback", optional: true },
    { name: "receipts", optional: true },
    { name: "tool-progress", optional: true },
    { name: "sanitize", optional: true },
    { name: "batch-leasing", optional: true },
    { name: "durable-context", optional: true },
    { name: "loop-detection", optional: true },
    { name: "subagents", optional: true },
  ],
  channels: {
    budget: {
      schema: budgetChannelSchema as unknown as Record<string, unknown>,
      reducer: "replace",
      description: "This agent run's token account: baseline, counted messages, totals, warn and stop turns.",
    },
  },
  hooks: {
    beforeAgent: { observes: ["messages"], mutates: ["budget"] },
    afterModel: { observes: ["messages", "usage"], mutates: ["budget", "stopReasons"] },
    wrapModelCall: { observes: ["budget"], mutates: ["model.request"] },
  },
  config: tokenBudgetConfigSchema as unknown as Record<string, unknown>,
};
