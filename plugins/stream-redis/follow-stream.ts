/**
 * One subscription to a run's Redis stream: XRANGE replay after the cursor, then an
 * XREAD BLOCK loop on a connection of its own (a blocked connection can serve nothing
 * else), until `end`, a gap, or abort.
 *
 * The blocking connection is opened only when the replay has caught up with a run that
 * has not ended (a late subscriber of a finished run never opens one), and it is closed
 * with `disconnect()` when the iteration ends for any reason: QUIT would queue behind
 * the blocked XREAD. Aborting does not wait for Redis: the pending read is raced
 * against the signal, and BLOCK is bounded (`blockMs`) so a read that a dropped
 * connection failed to reject cannot hold the loop for long.
 */
import type { Redis } from "ioredis";
import { compareEventIds, ZERO_EVENT_ID } from "../../kernel/runs/stream-event-id.js";
import { followsCursor, gapEvent, type LoggedEvent, type RetainedRange } from "../../kernel/runs/stream-gap.js";
import type { StreamEvent } from "../../kernel/runs/types.js";
import { decodeEntry, type RawEntry } from "./stream-entries.js";

export interface FollowRequest {
  runId: string;
  key: string;
  /** The commands connection (shared by the bridge). */
  redis: Redis;
  /** Opens this subscription's blocking connection; the caller tracks it for `close()`. */
  openBlocking(): Redis;
  /** Where to start: after this id, or from the earliest retained event when null. */
  start: string | null;
  signal: AbortSignal;
  pageSize: number;
  blockMs: number;
}

interface Range extends RetainedRange {
  ended: boolean;
}

export async function* followRunStream(request: FollowRequest): AsyncGenerator<StreamEvent> {
  const { runId, key, redis, signal, pageSize } = request;
  let cursor = request.start;
  let blocking: Redis | undefined;

  /** Deliver entries in order; "stop" after `end`, a gap, or abort. */
  async function* deliver(entries: readonly RawEntry[]): AsyncGenerator<StreamEvent, "stop" | "more"> {
    for (const raw of entries) {
      const { event, prev }: LoggedEvent = decodeEntry(runId, raw);
      if (!followsCursor(prev, cursor)) {
        yield gapEvent(runId, cursor!, await retainedRange(redis, key), prev);
        return "stop";
      }
      yield event;
      if (signal.aborted || event.event === "end") return "stop";
      cursor = event.id;
    }
    return "more";
  }

  try {
    // Replay what is retained after the cursor, page by page.
    for (;;) {
      const page = await untilAborted(redis.xrange(key, cursor === null ? "-" : `(${cursor}`, "+", "COUNT", pageSize), signal);
      if (page === undefined) return;
      if ((yield* deliver(page)) === "stop") return;
      if (page.length < pageSize) break;
    }

    const range = await untilAborted(retainedRange(redis, key), signal);
    if (range === undefined) return;
    if (cursor !== null && range.latest === null) {
      // A cursor means the run did publish; an empty stream means it expired or was deleted.
      yield gapEvent(runId, cursor, range, cursor);
      return;
    }
    if (cursor !== null && range.ended && compareEventIds(range.latest!, cursor) <= 0) return;

    // Follow live. XREAD from the cursor cannot miss an entry appended since the replay.
    blocking = request.openBlocking();
    while (!signal.aborted) {
      const reply = await untilAborted(
        blocking.xread("COUNT", pageSize, "BLOCK", request.blockMs, "STREAMS", key, cursor ?? ZERO_EVENT_ID),
        signal,
      );
      if (reply === undefined) return;
      if (reply === null) continue; // BLOCK timed out: nothing new yet
      if ((yield* deliver(reply[0]?.[1] ?? [])) === "stop") return;
    }
  } finally {
    blocking?.disconnect();
  }
}

/** The earliest and latest retained ids, and whether the latest is `end`. */
async function retainedRange(redis: Redis, key: string): Promise<Range> {
  const [first, last] = await Promise.all([redis.xrange(key, "-", "+", "COUNT", 1), redis.xrevrange(key, "+", "-", "COUNT", 1)]);
  const latest = last[0];
  const ended = latest !== undefined && decodeEntry("", latest).event.event === "end";
  return { earliest: first[0]?.[0] ?? null, latest: latest?.[0] ?? null, ended };
}

/**
 * The promise's value, or undefined as soon as the signal aborts. A rejection that
 * arrives after the abort (the connection was closed under it) is expected and dropped.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) resolve(undefined);
        else reject(error);
      },
    );
  });
}
