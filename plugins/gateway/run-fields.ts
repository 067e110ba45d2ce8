import { isKeelError } from "../../kernel/errors.js";
import { checkInterruptNodes, LOOP_NODES } from "../../kernel/loop/pause.js";
import { isRecord } from "../../contracts/plain-object.js";
import { HttpError } from "./http-errors.js";
import type { RunCreateBody } from "./schemas-runs.js";

/**
 * What Keel does with each field of LangGraph's run-create payload that has no Keel
 * counterpart (docs/http.md, "Runs API"): a value Keel cannot honour is a 400
 * `KEEL_ERR_HTTP_UNSUPPORTED_FIELD` naming the field, never silently ignored. Values that
 * change nothing (`false`, `[]`, `null`, LangGraph's defaults) are accepted.
 */
export function refuseUnsupportedFields(body: RunCreateBody): void {
  const feedback = body.feedback_keys;
  if (feedback != null && !(Array.isArray(feedback) && feedback.every((key) => typeof key === "string"))) invalid("/feedback_keys", "must be a list of strings");
  if (Array.isArray(feedback) && feedback.length > 0) unsupported("/feedback_keys", "LangSmith feedback keys are not supported");
  if (body.langsmith_tracer != null) unsupported("/langsmith_tracer", "a per-run LangSmith project is not supported; tracing is configured on the server");
  if (body.strict_resume === true) unsupported("/strict_resume", "a strict resume (refusing a resume value that matches no pending interrupt) is not supported");
  if (body.checkpoint_during === false) unsupported("/checkpoint_during", "Keel checkpoints every step; `false` is not supported");
  if (body.durability === "exit") unsupported("/durability", "Keel checkpoints every step; `exit` is not supported (`sync` and `async` are)");
  const checkpoint = body.checkpoint;
  if (checkpoint?.checkpoint_ns) unsupported("/checkpoint/checkpoint_ns", "only the root namespace (`\"\"`) can be run from");
  if (checkpoint?.checkpoint_map && Object.keys(checkpoint.checkpoint_map).length > 0) unsupported("/checkpoint/checkpoint_map", "a checkpoint map is not supported");
}

/**
 * A run's interrupt points (docs/http.md, "Interrupts and resume"): the body's
 * `interrupt_before` / `interrupt_after`, else the same keys of its `config` (an
 * assistant's config lands there; the request's config wins over the assistant's).
 * `"*"` or a list of the loop's nodes (`agent`, `tools`); an empty list is none; an
 * unknown node is 400 `KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN` with the entry's pointer.
 */
export function requestedInterrupts(body: Pick<RunCreateBody, "interrupt_before" | "interrupt_after" | "config">): { interruptBefore?: "*" | string[]; interruptAfter?: "*" | string[] } {
  const out: { interruptBefore?: "*" | string[]; interruptAfter?: "*" | string[] } = {};
  const config = (body.config ?? {}) as Record<string, unknown>;
  for (const [field, key] of [["interrupt_before", "interruptBefore"], ["interrupt_after", "interruptAfter"]] as const) {
    const own = body[field];
    const [value, pointer] = own != null ? [own, `/${field}`] : [config[field], `/config/${field}`];
    const nodes = asHttpError(() => checkInterruptNodes(value, pointer));
    if (nodes === undefined || (nodes !== "*" && nodes.length === 0)) continue;
    out[key] = nodes === "*" ? "*" : [...nodes];
  }
  return out;
}

/**
 * LangGraph's `command` (`{ resume?, update?, goto? }`, as the SDK sends it): an object
 * with at least one of them; `update` an object of channel values (or a list of
 * `[channel, value]` pairs), `goto` a loop node (or a list, or `{ node, input }` sends).
 */
export function requestedCommand(body: Pick<RunCreateBody, "command">): { resume?: unknown; update?: Record<string, unknown> | null; goto?: unknown } | undefined {
  const command = body.command;
  if (command == null) return undefined;
  if (!isRecord(command)) invalid("/command", "must be an object `{ resume?, update?, goto? }`");
  const { resume, update, goto } = command;
  if (resume === undefined && update == null && goto == null) invalid("/command", "needs `resume`, `update` or `goto`");
  let updates: Record<string, unknown> | undefined;
  if (Array.isArray(update)) {
    update.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string") invalid(`/command/update/${i}`, "must be a `[channel, value]` pair");
    });
    updates = Object.fromEntries(update as [string, unknown][]);
  } else if (update != null) {
    if (!isRecord(update)) invalid("/command/update", "must be an object of channel values");
    updates = update;
  }
  if (goto != null) {
    const targets = Array.isArray(goto) ? goto.map((g, i) => [g, `/command/goto/${i}`] as const) : [[goto, "/command/goto"] as const];
    for (const [target, pointer] of targets) {
      const node = typeof target === "string" ? target : isRecord(target) ? target.node : undefined;
      if (typeof node !== "string" || !(LOOP_NODES as readonly string[]).includes(node)) {
        throw new HttpError(400, "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", `invalid body at \`${pointer}\`: the loop's nodes are ${LOOP_NODES.join(", ")}`, pointer);
      }
    }
  }
  return { ...(resume !== undefined ? { resume } : {}), ...(updates ? { update: updates } : {}), ...(goto != null ? { goto } : {}) };
}

/** A KeelError with a pointer (the kernel's checks) as the 400 that names it. */
function asHttpError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (isKeelError(error)) throw new HttpError(400, error.code, error.message, error.pointer);
    throw error;
  }
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
