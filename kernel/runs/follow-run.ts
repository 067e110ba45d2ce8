/**
 * Never a hang for a stream reader: while it follows a run's stream (the bridge
 * subscription, untouched — nothing is added per event), a watchdog reads the run's record
 * every `recheckMs`. A record found terminal twice in a row (one recheck of grace:
 * finalization writes the record just before `end`) with the stream still open gets its
 * lost end published (end-recovery.ts), which the subscription then delivers like any
 * event. When the bridge refuses that, or the `end` still has not come one recheck later,
 * `onLost(run)` is called: the reader stops its subscription and closes with
 * `closingEvents` — the record's final events, without ids (they are not in the log).
 */
import { finalEvents, publishLostEnd } from "./end-recovery.js";
import { isTerminal, type ManagerContext } from "./manager-context.js";
import type { RunRecord, StreamEvent } from "./types.js";

/** Start watching; returns the stop function (call it when the reader's loop ended). */
export function watchForLostEnd(ctx: ManagerContext, runId: string, recheckMs: number, onLost: (run: RunRecord) => void): () => void {
  let stopped = false;
  let terminalSeen = false;
  let tried = false;
  let checking = false;
  const lose = (run: RunRecord) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    onLost(run);
  };
  const check = async () => {
    const run = await ctx.store.getRun(runId).catch(() => null);
    if (stopped || !run || !isTerminal(run.status)) return;
    if (!terminalSeen) {
      terminalSeen = true;
      return;
    }
    if (tried) return lose(run);
    tried = true;
    try {
      await publishLostEnd(ctx, run);
    } catch (error) {
      ctx.log(`run ${runId}: its record is terminal but its stream has no \`end\`, and publishing it failed; the reader gets the record's final events`, error);
      lose(run);
    }
  };
  const timer = setInterval(() => {
    if (checking || stopped) return;
    checking = true;
    void check().finally(() => (checking = false));
  }, recheckMs);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** The events that close a stream whose `end` was lost, built from the record (after what the reader got), ids empty. */
export async function closingEvents(ctx: ManagerContext, run: RunRecord, received: readonly Pick<StreamEvent, "event">[]): Promise<StreamEvent[]> {
  const events = await finalEvents(ctx, run, received);
  return [...events, { event: "end", data: null }].map((event) => ({ id: "", runId: run.runId, ...event }));
}
