/**
 * Always an `end`: a run whose terminal record was written but whose final events never
 * reached the stream (the bridge refused the writes, or the worker died between the two)
 * gets them from whoever notices first — the periodic recovery sweep on any worker, or a
 * reader that waited past a recheck (follow-run.ts, join-run.ts).
 *
 * What is published for such a run, after what its stream already holds: `metadata` when
 * the stream has none, the thread's final `values` (runs that started), `error` for a
 * failed or timed-out run that has none, then `end` — under the run's lease epoch. `end`
 * is idempotent on every bridge, so two workers recovering the same run leave one `end`.
 */
import { isoNow, type ManagerContext } from "./manager-context.js";
import type { RunRecord, StreamEvent } from "./types.js";

/** How long after its terminal write a run's stream may still lack `end` before the sweep publishes it. */
export const END_GRACE_MS = 5_000;
/** How far back a worker's first sweep looks for finished runs. */
export const END_LOOKBACK_MS = 15 * 60_000;
/** Finished runs read per store page. */
const PAGE = 200;

export type EndRecovery = "published" | "had_end";

/**
 * Publish what `run`'s stream lacks after its terminal record (see above). Throws when the
 * bridge refuses (the caller retries later).
 */
export async function publishLostEnd(ctx: ManagerContext, run: RunRecord): Promise<EndRecovery> {
  const events = await ctx.bridge.read(run.runId);
  if (events.at(-1)?.event === "end") return "had_end";
  const options = { epoch: run.epoch };
  for (const event of await finalEvents(ctx, run, events)) await ctx.bridge.publish(run.runId, event.event, event.data, options);
  await ctx.bridge.end(run.runId, options);
  return "published";
}

/**
 * The events that close a run's stream after its record: what `publishLostEnd` publishes
 * (before `end`), and what a reader is given from the record when even that is refused.
 */
export async function finalEvents(ctx: ManagerContext, run: RunRecord, published: readonly Pick<StreamEvent, "event">[]): Promise<Array<Pick<StreamEvent, "event" | "data">>> {
  const events: Array<Pick<StreamEvent, "event" | "data">> = [];
  if (!published.some((e) => e.event === "metadata")) events.push({ event: "metadata", data: { run_id: run.runId, thread_id: run.threadId, attempt: run.epoch } });
  // A run that never started (cancelled while pending) changed nothing: the thread's values are not its values.
  if (run.epoch > 0) events.push({ event: "values", data: plainValues(await ctx.executor.getThreadState(run.threadId)) });
  const error = run.outcome?.error;
  if ((run.status === "error" || run.status === "timeout") && error && !published.some((e) => e.event === "error")) {
    events.push({ event: "error", data: { error: error.type, message: error.message, type: error.type } });
  }
  return events;
}

/**
 * A thread's channel values as JSON a client reads: keys starting with `__` (runtime
 * bookkeeping) left out, LangChain messages as LangGraph dicts (`{ ...data, type }`).
 */
export function plainValues(values: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(values ?? {}, function (this: Record<string, unknown>, key: string, replaced: unknown) {
    const raw = this[key];
    if (raw !== null && typeof raw === "object" && typeof (raw as { toDict?: unknown }).toDict === "function") {
      const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
      return { ...data, type };
    }
    return replaced;
  });
  const plain = JSON.parse(json) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(plain).filter(([key]) => !key.startsWith("__")));
}

/**
 * The sweep: finished runs whose last write is older than the grace period and newer than
 * what this worker already checked (a watermark; its first sweep looks `lookbackMs` back)
 * are checked once; those whose stream lacks `end` get it. A run the bridge refused is
 * retried on every sweep until it leaves the look-back window. Needs `RunStore.endedRuns`.
 */
export class EndRecoverySweep {
  private watermark: string | null = null;
  private readonly retry = new Map<string, RunRecord>();

  constructor(
    private readonly ctx: ManagerContext,
    private readonly options: { graceMs: number; lookbackMs: number },
  ) {}

  /** One pass; resolves with the number of runs whose end it published. */
  async sweepOnce(): Promise<number> {
    const endedRuns = this.ctx.store.endedRuns?.bind(this.ctx.store);
    if (!endedRuns) return 0;
    const now = this.ctx.clock.now();
    const oldest = new Date(now - this.options.lookbackMs).toISOString();
    const until = new Date(now - this.options.graceMs).toISOString();
    let published = 0;
    for (const run of [...this.retry.values()]) {
      if (run.updatedAt <= oldest) this.retry.delete(run.runId);
      else if (await this.recover(run)) published++;
    }
    let after = this.watermark !== null && this.watermark > oldest ? this.watermark : oldest;
    if (after >= until) return published;
    for (;;) {
      const page = await endedRuns(after, until, PAGE);
      for (const run of page) if (await this.recover(run)) published++;
      if (page.length < PAGE) break;
      after = page.at(-1)!.updatedAt;
      this.watermark = after;
    }
    this.watermark = until;
    return published;
  }

  private async recover(run: RunRecord): Promise<boolean> {
    try {
      const result = await publishLostEnd(this.ctx, run);
      this.retry.delete(run.runId);
      if (result === "published") this.ctx.log(`run ${run.runId}: its record is terminal (\`${run.status}\`) but its stream had no \`end\`; the recovery sweep published its final events and \`end\``);
      return result === "published";
    } catch (error) {
      if (!this.retry.has(run.runId)) this.ctx.log(`run ${run.runId}: publishing the lost \`end\` failed; the recovery sweep tries again (${isoNow(this.ctx.clock)})`, error);
      this.retry.set(run.runId, run);
      return false;
    }
  }
}
