/**
 * Waiting for a run's result. `end` is the commit marker, so the record is read after
 * `end` was seen on the stream; an aborted wait rejects — a client that went away never
 * turns an unfinished run into an answer.
 *
 * Never a hang: every `recheckMs` the record is read too, and a terminal record is the
 * answer even when its `end` never reaches the stream (the bridge refused it, or the
 * worker died between the record and the stream; the recovery sweep publishes it later).
 * A stream that fails (the bridge is down) leaves the rechecks to answer.
 */
import { KeelError } from "../errors.js";
import { isTerminal, type ManagerContext } from "./manager-context.js";
import { linkedSignal } from "./follow-log.js";
import type { RunRecord } from "./types.js";

/** How often a join (and a stream follower) reads the record while it waits for `end`. */
export const JOIN_RECHECK_MS = 2_000;

export async function joinRun(ctx: ManagerContext, runId: string, signal?: AbortSignal, recheckMs = JOIN_RECHECK_MS): Promise<RunRecord> {
  if (signal?.aborted) throw joinAborted(runId);
  const run = await ctx.store.getRun(runId);
  if (!run) throw new KeelError("KEEL_ERR_RUN_NOT_FOUND", `run \`${runId}\` does not exist`);
  // A finished run whose stream is no longer retained (dropped after its retention
  // period, or a bridge restarted since): the durable record is all there is.
  // (A bridge that cannot be read at all throws here: KEEL_ERR_STREAM_UNAVAILABLE, 503, retry.)
  if (isTerminal(run.status) && (await ctx.bridge.read(runId)).length === 0) return run;

  const stop = new AbortController();
  const { signal: linked, release } = linkedSignal([signal, stop.signal]);
  try {
    const outcome = await Promise.race([untilEnd(ctx, runId, linked), untilTerminal(ctx, runId, linked, recheckMs)]);
    if (outcome === "aborted" || signal?.aborted) throw joinAborted(runId);
    if (outcome !== "end") return outcome;
  } finally {
    stop.abort();
    release();
  }
  const finished = await ctx.store.getRun(runId);
  if (!finished || !isTerminal(finished.status)) {
    throw new KeelError("KEEL_ERR_RUN_JOIN_INCOMPLETE", `run \`${runId}\` ended its stream but its record is not terminal (\`${finished?.status ?? "missing"}\`)`);
  }
  return finished;
}

/** "end" when the stream shows it; never settles after a gap or a failed stream (the rechecks answer then). */
async function untilEnd(ctx: ManagerContext, runId: string, signal: AbortSignal): Promise<"end" | "aborted"> {
  try {
    for await (const event of ctx.bridge.subscribe(runId, { signal })) {
      if (event.event === "end") return "end";
      if (event.event === "gap") break;
    }
  } catch (error) {
    if (!signal.aborted) ctx.log(`run ${runId}: following its stream for a join failed; the join answers from the record`, error);
  }
  return signal.aborted ? "aborted" : new Promise<"aborted">((resolve) => signal.addEventListener("abort", () => resolve("aborted"), { once: true }));
}

/** The record once a recheck finds it terminal; "aborted" when the join is given up. */
async function untilTerminal(ctx: ManagerContext, runId: string, signal: AbortSignal, recheckMs: number): Promise<RunRecord | "aborted"> {
  for (;;) {
    if (!(await pause(recheckMs, signal))) return "aborted";
    try {
      const run = await ctx.store.getRun(runId);
      if (!run) throw new KeelError("KEEL_ERR_RUN_NOT_FOUND", `run \`${runId}\` does not exist (any more)`);
      if (isTerminal(run.status)) return run;
    } catch (error) {
      if (error instanceof KeelError && error.code === "KEEL_ERR_RUN_NOT_FOUND") throw error;
      ctx.log(`run ${runId}: reading its record for a join failed; trying again`, error);
    }
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    timer.unref?.();
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function joinAborted(runId: string): KeelError {
  return new KeelError("KEEL_ERR_RUN_JOIN_ABORTED", `waiting for run \`${runId}\` was aborted before its \`end\`; the run goes on`);
}
