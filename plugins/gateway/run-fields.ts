import { HttpError } from "./http-errors.js";
import type { RunCreateBody } from "./schemas-runs.js";

/**
 * What Keel does with each field of LangGraph's run-create payload that has no Keel
 * counterpart (plugins/gateway/README.md, "Runs API"): a value Keel cannot honour is a 400
 * `KEEL_ERR_HTTP_UNSUPPORTED_FIELD` naming the field, never silently ignored. Values that
 * change nothing (`false`, `[]`, `null`, LangGraph's defaults) are accepted.
 */
export function refuseUnsupportedFields(body: RunCreateBody): void {
  if (body.command != null) unsupported("/command", "commands (resuming an interrupt, `goto`, `update`) are not supported yet");
  for (const field of ["interrupt_before", "interrupt_after"] as const) {
    const value = body[field];
    if (value == null || (Array.isArray(value) && value.length === 0)) continue;
    if (value !== "*" && !(Array.isArray(value) && value.every((node) => typeof node === "string"))) invalid(`/${field}`, 'must be "*" or a list of node names');
    unsupported(`/${field}`, "static interrupts are not supported (Keel's loop has no interrupt points)");
  }
  const feedback = body.feedback_keys;
  if (feedback != null && !(Array.isArray(feedback) && feedback.every((key) => typeof key === "string"))) invalid("/feedback_keys", "must be a list of strings");
  if (Array.isArray(feedback) && feedback.length > 0) unsupported("/feedback_keys", "LangSmith feedback keys are not supported");
  if (body.langsmith_tracer != null) unsupported("/langsmith_tracer", "a per-run LangSmith project is not supported; tracing is configured on the server");
  if (body.strict_resume === true) unsupported("/strict_resume", "resuming interrupts is not supported yet");
  if (body.checkpoint_during === false) unsupported("/checkpoint_during", "Keel checkpoints every step; `false` is not supported");
  if (body.durability === "exit") unsupported("/durability", "Keel checkpoints every step; `exit` is not supported (`sync` and `async` are)");
  const checkpoint = body.checkpoint;
  if (checkpoint?.checkpoint_ns) unsupported("/checkpoint/checkpoint_ns", "only the root namespace (`\"\"`) can be run from");
  if (checkpoint?.checkpoint_map && Object.keys(checkpoint.checkpoint_map).length > 0) unsupported("/checkpoint/checkpoint_map", "a checkpoint map is not supported");
}

/**
 * The checkpoint a run starts from (a fork): `checkpoint_id`, or `checkpoint.checkpoint_id`
 * (both: they must agree); `checkpoint.thread_id`, when given, must be the run's thread.
 * Returns the id and the pointer to name in errors.
 */
export function requestedCheckpoint(body: RunCreateBody, threadId: string): { id: string; pointer: string } | undefined {
  const nested = body.checkpoint?.checkpoint_id ?? undefined;
  const direct = body.checkpoint_id ?? undefined;
  if (direct !== undefined && nested !== undefined && direct !== nested) invalid("/checkpoint/checkpoint_id", "differs from `checkpoint_id`; give one");
  const owner = body.checkpoint?.thread_id;
  if (owner != null && owner !== threadId) invalid("/checkpoint/thread_id", "names another thread; a run starts from a checkpoint of its own thread");
  if (direct !== undefined) return { id: direct, pointer: "/checkpoint_id" };
  if (nested !== undefined) return { id: nested, pointer: "/checkpoint/checkpoint_id" };
  return undefined;
}

function invalid(pointer: string, why: string): never {
  throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: ${why}`, pointer);
}

export function unsupported(pointer: string, why: string): never {
  throw new HttpError(400, "KEEL_ERR_HTTP_UNSUPPORTED_FIELD", `unsupported value at \`${pointer}\`: ${why}`, pointer);
}

/**
 * The turn limit a request asks for: `context.max_turns` or `config.configurable.max_turns`
 * (an integer ≥ 1), else LangGraph's `config.recursion_limit` mapped to turns —
 * `max(1, ⌊(limit − 10) / 2⌋)`, the inverse of the runtime's own recursion limit
 * (`2 × maxTurns + 10`). The run manager clamps the result to the server's `--max-turns`;
 * a small limit thus ends the run with a `turn_capped` forced answer, not a recursion error.
 */
export function requestedMaxTurns(body: Pick<RunCreateBody, "config" | "context">): number | undefined {
  const configurable = body.config?.configurable as Record<string, unknown> | undefined;
  const candidates: [unknown, string][] = [
    [body.context?.max_turns, "/context/max_turns"],
    [configurable?.max_turns, "/config/configurable/max_turns"],
  ];
  for (const [value, pointer] of candidates) {
    if (value === undefined || value === null) continue;
    return positiveInteger(value, pointer);
  }
  const limit = body.config?.recursion_limit ?? body.config?.recursionLimit;
  if (limit === undefined || limit === null) return undefined;
  const pointer = body.config?.recursion_limit !== undefined ? "/config/recursion_limit" : "/config/recursionLimit";
  return turnsForRecursionLimit(positiveInteger(limit, pointer));
}

/** `max(1, ⌊(limit − 10) / 2⌋)`: the turns a LangGraph recursion limit allows Keel's loop. */
export function turnsForRecursionLimit(limit: number): number {
  return Math.max(1, Math.floor((limit - 10) / 2));
}

function positiveInteger(value: unknown, pointer: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: must be an integer >= 1`, pointer);
  }
  return value;
}

/** `after_seconds` as the run's due time (ISO-8601), or undefined for "at once". */
export function dueAtOf(afterSeconds: number | null | undefined, nowMs: number): string | undefined {
  if (afterSeconds == null || afterSeconds <= 0) return undefined;
  return new Date(nowMs + Math.round(afterSeconds * 1000)).toISOString();
}
