import { compileSchema, toIssues } from "../../contracts/ajv.js";
import type { SubagentReturnV1 } from "../../contracts/subagent-return/v1.js";
import { sha256Hex } from "../../kernel/hashing.js";
import type { TokenUsage } from "../../kernel/loop/normalize.js";
import { primaryStopReason, type RunError, type RunStatus, type StatusV2Payload, type StopReason } from "../../kernel/loop/status.js";
import type { ReturnArgs } from "./return-result.js";

export type SubagentReturn = SubagentReturnV1;

/** Why the child's run was cut short from outside, if it was. */
export type Interruption =
  | { kind: "lease_expired"; ttlMs: number }
  | { kind: "timeout"; seconds: number }
  | { kind: "parent_cancelled" }
  | null;

export interface ChildEnd {
  /** The kernel's status@2 of the child run (kernel rules: last assistant text, stop reasons, errors). */
  outcome: StatusV2Payload;
  /** The child's valid `return_result` arguments, or null when it never made a successful call. */
  returned: ReturnArgs | null;
  interruption: Interruption;
  usage: TokenUsage;
}

export interface CallerTerms {
  outputSchema?: Record<string, unknown>;
  criticalPath?: readonly string[];
  callerNextAction?: string;
}

const BADNESS: Record<RunStatus, number> = { succeeded: 0, partial: 1, failed: 2, timed_out: 3, cancelled: 3 };

function worse(a: RunStatus, b: RunStatus): RunStatus {
  return BADNESS[b] > BADNESS[a] ? b : a;
}

/** A run fault (plugin, model, contract): the kernel's coded errors, as opposed to "no usable output". */
function isFault(error: RunError | undefined): boolean {
  return error !== undefined && error.type.startsWith("KEEL_ERR_");
}

interface Seen {
  status: RunStatus;
  stopReasons: StopReason[];
  error?: RunError;
  limit?: SubagentReturn["limit"];
}

/** What the runtime saw: for a child, usable output is a `return_result` call that validates. */
function runtimeView(end: ChildEnd): Seen {
  const stopReasons = [...end.outcome.stopReasons];
  const i = end.interruption;
  if (i?.kind === "lease_expired") {
    const detail = `no heartbeat from the child for ${i.ttlMs} ms`;
    stopReasons.push({ reason: "lease_expired", by: "batch-leasing", detail, limit: { type: "seconds", value: i.ttlMs / 1000 } });
    return { status: "failed", stopReasons, error: { type: "lease_expired", message: `Lease expired: ${detail}`, retryable: true } };
  }
  if (i?.kind === "timeout") {
    const message = `Exceeded timeoutSeconds=${i.seconds}`;
    return { status: "timed_out", stopReasons, error: { type: "timed_out", message, retryable: true }, limit: { type: "seconds", value: i.seconds } };
  }
  if (i?.kind === "parent_cancelled" || end.outcome.status === "cancelled") {
    return { status: "cancelled", stopReasons, error: end.outcome.error ?? { type: "KEEL_ERR_RUN_CANCELLED", message: "Run cancelled", retryable: true } };
  }
  if (end.returned && !isFault(end.outcome.error)) return { status: stopReasons.length === 0 ? "succeeded" : "partial", stopReasons };
  return { status: end.outcome.status, stopReasons, ...(end.outcome.error ? { error: end.outcome.error } : {}) };
}

function schemaCheck(schema: Record<string, unknown> | undefined, payload: unknown): { schemaValid: boolean | null; problem?: string } {
  if (schema === undefined) return { schemaValid: null };
  const validateFn = compileSchema(schema);
  if (validateFn(payload)) return { schemaValid: true };
  const issues = toIssues(validateFn.errors).map((e) => `${e.pointer || "/"}: ${e.message}`);
  return { schemaValid: false, problem: `payload does not match the caller's outputSchema (${issues.join("; ")})` };
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The partial-acceptance rule (subagent-return@1): the first rule that fails, or null. */
export function partialRuleViolation(returned: ReturnArgs | null, criticalPath: readonly string[] | undefined): string | null {
  if (!returned || !Array.isArray(returned.completedSteps) || !Array.isArray(returned.missingSteps)) {
    return "partial not accepted: no inventory (completedSteps and missingSteps) was handed back";
  }
  const critical = returned.missingSteps.find((step) => (criticalPath ?? []).some((c) => same(c, step)));
  if (critical !== undefined) return `partial not accepted: missing step \`${critical}\` is on the caller's critical path`;
  if (!returned.verification) return "partial not accepted: no verification handle";
  return null;
}

/**
 * Map a child's end to subagent-return@1: the worse of the child's claim and what the
 * runtime saw; an outputSchema the payload fails makes it `failed` (schemaValid false)
 * whatever the child said; a partial is accepted only by the rule, else it becomes
 * `failed` with `reason` naming the rule, keeping the inventory and payload.
 */
export function judgeChildReturn(end: ChildEnd, terms: CallerTerms): SubagentReturn {
  const seen = runtimeView(end);
  const r = end.returned;
  let status = worse(r?.status ?? seen.status, seen.status);
  let error = seen.error;
  let reason = r?.reason;
  if (status === "failed" && !error) {
    error = { type: "child_reported_failure", message: r?.reason ?? (r?.text || "The child reported failure"), retryable: r?.retryable ?? false };
  }
  const payload = r?.payload ?? null;
  const schema = schemaCheck(terms.outputSchema, payload);
  if (schema.schemaValid === false && BADNESS[status] < BADNESS.failed) {
    status = "failed";
    reason = schema.problem!;
    error = { type: "schema_invalid", message: schema.problem!, retryable: true };
  }
  if (status === "partial") {
    const violation = partialRuleViolation(r, terms.criticalPath);
    if (violation) {
      status = "failed";
      reason = violation;
      error = { type: "partial_not_accepted", message: violation, retryable: r?.retryable ?? false };
    }
  }
  const text = r?.text ?? (end.outcome.status === "succeeded" || end.outcome.status === "partial" ? end.outcome.text : "");
  const primary = primaryStopReason(seen.stopReasons);
  const limit = seen.limit ?? seen.stopReasons.find((s) => s.reason === primary)?.limit;
  return {
    contract: "subagent-return",
    version: 1,
    status,
    stopReasons: seen.stopReasons,
    ...(primary === undefined ? {} : { primaryStopReason: primary }),
    text,
    ...(status === "succeeded" || status === "partial" || !error ? {} : { error }),
    ...(text.length > 0 ? { resultSha256: sha256Hex(text) } : {}),
    usage: end.usage,
    ...(reason ? { reason } : {}),
    ...(limit ? { limit } : {}),
    ...(r?.stoppedAtStep ? { stoppedAtStep: r.stoppedAtStep } : {}),
    completedSteps: r?.completedSteps ?? [],
    missingSteps: r?.missingSteps ?? [],
    payload,
    ...(r?.verification ? { verification: r.verification } : {}),
    suggestions: r?.suggestions ?? [],
    retryable: r?.retryable ?? error?.retryable ?? false,
    schemaValid: schema.schemaValid,
    ...(terms.callerNextAction ? { callerNextAction: terms.callerNextAction } : {}),
    ...(terms.criticalPath && terms.criticalPath.length > 0 ? { criticalPath: [...terms.criticalPath] } : {}),
  };
}
