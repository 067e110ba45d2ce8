/**
 * Waiting for a run's result. `end` is the commit marker, so the record is read only
 * after `end` was seen on the stream; an aborted wait rejects — a client that went away
 * never turns an unfinished run into an answer.
 */
import { KeelError } from "../errors.js";
import { isTerminal, type ManagerContext } from "./manager-context.js";
import type { RunRecord } from "./types.js";

export async function joinRun(ctx: ManagerContext, runId: string, signal?: AbortSignal): Promise<RunRecord> {
  if (signal?.aborted) throw joinAborted(runId);
  const run = await ctx.store.getRun(runId);
  if (!run) throw new KeelError("KEEL_ERR_RUN_NOT_FOUND", `run \`${runId}\` does not exist`);
  // A finished run whose stream is no longer retained (dropped after its retention
  // period, or a bridge restarted since): the durable record is all there is.
  if (isTerminal(run.status) && (await ctx.bridge.read(runId)).length === 0) return run;

  let sawEnd = false;
  for await (const event of ctx.bridge.subscribe(runId, signal ? { signal } : {})) {
    if (event.event === "end") {
      sawEnd = true;
      break;
    }
    if (event.event === "gap") break;
  }
  if (!sawEnd) {
    if (signal?.aborted) throw joinAborted(runId);
    throw new KeelError("KEEL_ERR_RUN_JOIN_INCOMPLETE", `the stream of run \`${runId}\` stopped before its \`end\` event; join it again later`);
  }
  const finished = await ctx.store.getRun(runId);
  if (!finished || !isTerminal(finished.status)) {
    throw new KeelError("KEEL_ERR_RUN_JOIN_INCOMPLETE", `run \`${runId}\` ended its stream but its record is not terminal (\`${finished?.status ?? "missing"}\`)`);
  }
  return finished;
}

function joinAborted(runId: string): KeelError {
  return new KeelError("KEEL_ERR_RUN_JOIN_ABORTED", `waiting for run \`${runId}\` was aborted before its \`end\`; the run goes on`);
}
