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

/**
 * How a bridge reads one run's log. Each call returns `undefined` when `signal` aborted
 * meanwhile (the subscription then ends quietly).
 */
export interface LogSource {
  /** Up to `pageSize` retained events after `cursor` (from the earliest when null), oldest first. */
  readAfter(cursor: string | null, signal: AbortSignal): Promise<readonly LoggedEvent[] | undefined>;
  /** The retained range now. */
  range(signal: AbortSignal): Promise<LogRange | undefined>;
  /**
   * Wait until events after `cursor` may exist. A source whose wait already reads them
   * (Redis `XREAD BLOCK`) returns them; one that is only woken returns `[]`, and the
   * follower reads again.
   */
  waitAfter(cursor: string | null, signal: AbortSignal): Promise<readonly LoggedEvent[] | undefined>;
  /** Events per `readAfter` page (`Infinity` when a read returns everything). */
  pageSize: number;
}

/** Follow `runId`'s log from after `start` (or from the earliest retained event when null). */
export async function* followLog(runId: string, source: LogSource, start: string | null, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  let cursor = start;

  /** Deliver events in order; "stop" after `end`, a gap, or abort. */
  async function* deliver(entries: readonly LoggedEvent[]): AsyncGenerator<StreamEvent, "stop" | "more"> {
    for (const { event, prev } of entries) {
      if (!followsCursor(prev, cursor)) {
        const range = await source.range(signal);
        yield gapEvent(runId, cursor!, range ?? { earliest: null, latest: null }, prev);
        return "stop";
      }
      yield event;
      if (signal.aborted || event.event === "end") return "stop";
      cursor = event.id;
    }
    return "more";
  }

  // Replay what is retained after the cursor.
  for (;;) {
    const page = await source.readAfter(cursor, signal);
    if (page === undefined) return;
    if ((yield* deliver(page)) === "stop") return;
    if (page.length < source.pageSize) break;
  }

  const range = await source.range(signal);
  if (range === undefined) return;
  if (cursor !== null && range.latest === null) {
    // A cursor means the run did publish; an empty log means it expired or was deleted.
    yield gapEvent(runId, cursor, range, cursor);
    return;
  }
  // Nothing after the cursor in an ended log: the cursor is at (or past) `end`.
  if (cursor !== null && range.ended && compareEventIds(range.latest!, cursor) <= 0) return;

  // Follow live. Reading after the cursor cannot miss an event appended since the replay.
  while (!signal.aborted) {
    const woken = await source.waitAfter(cursor, signal);
    if (woken === undefined) return;
    const entries = woken.length > 0 ? woken : await source.readAfter(cursor, signal);
    if (entries === undefined) return;
    if ((yield* deliver(entries)) === "stop") return;
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
