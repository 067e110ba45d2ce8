import type { Manifest } from "../../kernel/plugin/types.js";

/** LangChain v1's default `descriptionPrefix` (humanInTheLoopMiddleware). */
export const DEFAULT_DESCRIPTION_PREFIX = "Tool execution requires approval";

/** Decisions kept in `approvals` (the newest; older ones stay in the journal). */
export const APPROVALS_KEPT = 200;

const DECISION_TYPES = ["approve", "edit", "reject"] as const;

/** JSON Schema of the human-approval options: LangChain v1's `humanInTheLoopMiddleware` shape. */
export const humanApprovalConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    interruptOn: {
      type: "object",
      default: {},
      description:
        "Which tools need approval, by tool name: `true` (approve, edit or reject), `false` (runs without asking), or `{ allowedDecisions, description? }`. A tool not named runs without asking (default: no tool).",
      additionalProperties: {
        anyOf: [
          { type: "boolean" },
          {
            type: "object",
            additionalProperties: false,
            required: ["allowedDecisions"],
            properties: {
              allowedDecisions: { type: "array", minItems: 1, uniqueItems: true, items: { enum: [...DECISION_TYPES] } },
              description: { type: "string", description: "The request's `description` for this tool (else the prefix, the tool and its args)." },
            },
          },
        ],
      },
    },
    descriptionPrefix: {
      type: "string",
      default: DEFAULT_DESCRIPTION_PREFIX,
      description: "First line of the `description` of a tool without its own.",
    },
  },
} as const;

/** One decision kept in `approvals`. */
export const approvalEntrySchema = {
  type: "object",
  additionalProperties: false,
  required: ["toolCallId", "tool", "decision", "at", "runId", "turn"],
  properties: {
    toolCallId: { type: "string", minLength: 1 },
    tool: { type: "string", minLength: 1 },
    decision: { enum: [...DECISION_TYPES] },
    /** `edit`: the arguments the call runs with instead. */
    args: { type: "object" },
    /** `reject`: what the model is told. */
    message: { type: "string" },
    /** The run's user; absent for a run without one. */
    by: { type: "string", minLength: 1 },
    at: { type: "string", minLength: 1 },
    runId: { type: "string", minLength: 1 },
    turn: { type: "integer", minimum: 0 },
  },
} as const;

export const humanApprovalManifest: Manifest = {
  name: "human-approval",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Puts the tool calls its policy names to a human before the tools step: one interrupt per AI message with LangChain v1's HITL request; each call is approved, edited or rejected (the model sees the rejection). Decisions are kept in `approvals`, journaled and stamped on receipts. A delegated child's policy call is refused.",
  // Last in the composed order: its afterModel runs first (the guards, batch-leasing and
  // subagents read the edited calls), its wrapToolCall innermost but inside receipts (which
  // stamps the decision it sets on the result).
  requiresBefore: [
    { name: "workspace", optional: true },
    { name: "receipts", optional: true },
    { name: "sanitize", optional: true },
    { name: "read-before-write", optional: true },
    { name: "tool-progress", optional: true },
    { name: "subagents", optional: true },
    { name: "batch-leasing", optional: true },
    { name: "loop-detection", optional: true },
    { name: "finish-reason", optional: true },
    { name: "token-budget", optional: true },
  ],
  channels: {
    approvals: {
      schema: { type: "array", items: approvalEntrySchema },
      reducer: { kind: "merge-by-id", key: "toolCallId", keepNewest: APPROVALS_KEPT },
      // Only this plugin decides what a human approved: an input or `command.update` cannot write it.
      runtimeOwned: true,
      description: "Every human decision on a tool call (tool call id, tool, decision, edited args or message, who, when), oldest first; the newest 200 are kept.",
    },
  },
  hooks: {
    afterModel: { observes: ["messages", "approvals"], mutates: ["messages", "approvals"] },
    wrapToolCall: { observes: ["tool.request", "approvals"], mutates: ["tool.response"] },
  },
  config: humanApprovalConfigSchema as unknown as Record<string, unknown>,
};
