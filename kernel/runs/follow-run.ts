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
import { linkedSignal } from "./follow-log.js";
import { pause } from "./join-run.js";
import { isTerminal, type ManagerContext } from "./manager-context.js";
import type { RunRecord, StreamEvent } from "./types.js";

export interface FollowRunOptions {
  /** Resume after this event id (`Last-Event-ID`); from the start when absent. */
  lastEventId?: string;
  /** The reader went away: the iteration ends quietly. */
  signal?: AbortSignal;
}

/**
 * A reader's whole stream of a run, always closed by `end` (unless `signal` aborts): the
 * bridge subscription, the lost-end watchdog above, and a reader that outlives a bridge
 * fault (a Redis restart that lost every event):
 *
 * - the subscription fails (the bridge is down): after `recheckMs` it is opened again
 *   after the last event delivered, until it works or the watchdog closes the stream from
 *   the record;
 * - it reports a `gap` (events lost): the `gap` is delivered and the subscription goes on
 *   after it (the gap's id resumes at the first retained event). When nothing is retained
 *   after it (a second `gap` at once, not delivered: one `gap` per hole), a finished run's
 *   stream closes with the record's final events and `end` (`closingEvents`); a live run's
 *   is looked at again every `recheckMs`;
 * - it ends without `end` (the bridge closed it): as a failure.
 */
export async function* followRun(ctx: ManagerContext, runId: string, options: FollowRunOptions, recheckMs: number): AsyncGenerator<StreamEvent> {
  let lost: RunRecord | null = null;
  const lostEnd = new AbortController();
  const stopWatching = watchForLostEnd(ctx, runId, recheckMs, (run) => {
    lost = run;
    lostEnd.abort();
  });
  const { signal, release } = linkedSignal([options.signal, lostEnd.signal]);
  const received: Array<Pick<StreamEvent, "event">> = [];
  let cursor = options.lastEventId;
  /** A `gap` was delivered and nothing since: another one right away means nothing is retained after it. */
  let afterGap = false;
  try {
    while (!signal.aborted) {
      let gapped = false;
      try {
        for await (const event of ctx.bridge.subscribe(runId, { ...(cursor !== undefined ? { lastEventId: cursor } : {}), signal })) {
          if (event.event === "gap") {
            gapped = true;
            if (!afterGap) yield event;
            cursor = event.id;
            break;
          }
          afterGap = false;
          if (event.event === "metadata" || event.event === "error") received.push(event);
          yield event;
          if (event.event === "end") return;
          if (event.id) cursor = event.id;
        }
      } catch (error) {
        if (!signal.aborted) ctx.log(`run ${runId}: following its stream failed; the reader subscribes again after its last event`, error);
      }
      if (signal.aborted) break;
      if (gapped && !afterGap) {
        afterGap = true;
        continue;
      }
      if (afterGap) {
        const run = await ctx.store.getRun(runId).catch(() => null);
        if (run && isTerminal(run.status)) {
          lost = run;
          break;
        }
      }
      if (!(await pause(recheckMs, signal))) break;
    }
    const finished: RunRecord | null = lost;
    if (finished && !options.signal?.aborted) yield* await closingEvents(ctx, finished, received);
  } finally {
    stopWatching();
    release();
  }
}

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
