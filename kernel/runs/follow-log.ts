/**
 * One subscription to a run's log, the same for every StreamBridge: replay what is
 * retained after the cursor, page by page, then follow live until `end`, a gap, or
 * abort. A bridge only says how to read its log (`LogSource`); the order, the gap rule
 * (stream-gap.ts) and the end conditions live here once.
 */
import { compareEventIds } from "./stream-event-id.js";
import { followsCursor, gapEvent, type LoggedEvent, type RetainedRange } from "./stream-gap.js";
import type { StreamEvent } from "./types.js";

/** What a follower needs to know of the log's retained range. */
export interface LogRange extends RetainedRange {
  /** Whether the newest retained event is `end`. */
  ended: boolean;
}

type Maybe<T> = T | Promise<T>;

/**
 * How a bridge reads one run's log. Each call returns `undefined` when `signal` aborted
 * meanwhile (the subscription then ends quietly). An in-process source answers without
 * a Promise: the follower then does not wait a turn, so a live subscriber keeps pace with
 * a fast publisher.
 */
export interface LogSource {
  /** Up to `pageSize` retained events after `cursor` (from the earliest when null), oldest first. */
  readAfter(cursor: string | null, signal: AbortSignal): Maybe<readonly LoggedEvent[] | undefined>;
  /** The retained range now. */
  range(signal: AbortSignal): Maybe<LogRange | undefined>;
  /**
   * Wait until events after `cursor` may exist (answer at once when they already do). A
   * source whose wait already reads them (Redis `XREAD BLOCK`) returns them; one that is
   * only woken returns `[]`, and the follower reads again.
   */
  waitAfter(cursor: string | null, signal: AbortSignal): Maybe<readonly LoggedEvent[] | undefined>;
  /** Events per `readAfter` page (`Infinity` when a read returns everything). */
  pageSize: number;
}

/**
 * Follow `runId`'s log from after `start` (or from the earliest retained event when null)
 * until `end`, a gap, or any of `signals` aborts. One flat loop, no nested generators:
 * each delivered event costs the subscriber as few turns as possible.
 */
export async function* followLog(runId: string, source: LogSource, start: string | null, signals: ReadonlyArray<AbortSignal | undefined>): AsyncGenerator<StreamEvent> {
  const { signal, release } = linkedSignal(signals);
  let cursor = start;
  let replaying = true;
  try {
    while (!signal.aborted) {
      // `await` only what is a Promise: awaiting a plain value would still yield a turn to the publisher.
      let entries: Maybe<readonly LoggedEvent[] | undefined>;
      if (replaying) {
        entries = source.readAfter(cursor, signal);
      } else {
        let woken = source.waitAfter(cursor, signal);
        if (woken instanceof Promise) woken = await woken;
        entries = woken === undefined || woken.length > 0 ? woken : source.readAfter(cursor, signal);
      }
      if (entries instanceof Promise) entries = await entries;
      if (entries === undefined) return;

      for (const { event, prev } of entries) {
        if (!followsCursor(prev, cursor)) {
          let retained = source.range(signal);
          if (retained instanceof Promise) retained = await retained;
          yield gapEvent(runId, cursor!, retained ?? { earliest: null, latest: null }, prev);
          return;
        }
        yield event;
        if (signal.aborted || event.event === "end") return;
        cursor = event.id;
      }

      if (replaying && entries.length < source.pageSize) {
        // Replay done: decide whether there is anything left to follow.
        replaying = false;
        let retained = source.range(signal);
        if (retained instanceof Promise) retained = await retained;
        if (retained === undefined) return;
        if (cursor !== null && retained.latest === null) {
          // A cursor means the run did publish; an empty log means it expired or was deleted.
          yield gapEvent(runId, cursor, retained, cursor);
          return;
        }
        // Nothing after the cursor in an ended log: the cursor is at (or past) `end`.
        if (cursor !== null && retained.ended && compareEventIds(retained.latest!, cursor) <= 0) return;
      }
    }
  } finally {
    release();
  }
}

/**
 * A signal that aborts when any source does, and its release. Subscriptions use it under
 * a bridge's long-lived closing signal; releasing removes the listeners, so a bridge that
 * serves many subscriptions does not pile them up.
 */
export function linkedSignal(sources: ReadonlyArray<AbortSignal | undefined>): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const present = sources.filter((source): source is AbortSignal => source !== undefined);
  for (const source of present) {
    if (source.aborted) abort();
    else source.addEventListener("abort", abort, { once: true });
  }
  return { signal: controller.signal, release: () => present.forEach((source) => source.removeEventListener("abort", abort)) };
}

