/**
 * One subscription to a run's Redis stream, as a LogSource for the shared follower
 * (kernel/runs/follow-log.ts): XRANGE pages for the replay, then XREAD BLOCK on a
 * connection of its own (a blocked connection can serve nothing else).
 *
 * The blocking connection is opened only when the replay has caught up with a run that
 * has not ended (a late subscriber of a finished run never opens one), and it is closed
 * with `disconnect()` when the iteration ends for any reason: QUIT would queue behind
 * the blocked XREAD. Aborting does not wait for Redis: the pending read is raced
 * against the signal, and BLOCK is bounded (`blockMs`) so a read that a dropped
 * connection failed to reject cannot hold the loop for long.
 *
 * Each page is reported to the follower with the `prev` that id continuity implies
 * (continuity.ts), so events lost to trimming, a flush or a Redis restart end the
 * subscription with `gap`. Joining from the start (no cursor) of a run whose first
 * events were trimmed begins with the run's first `metadata` event, kept aside for this.
 * A failed Redis command ends the iteration with `KEEL_ERR_STREAM_UNAVAILABLE`.
 */
import type { Redis } from "ioredis";
import { followLog, type LogRange, type LogSource } from "../../kernel/runs/follow-log.js";
import { compareEventIds, ZERO_EVENT_ID } from "../../kernel/runs/stream-event-id.js";
import type { LoggedEvent } from "../../kernel/runs/stream-gap.js";
import type { StreamEvent } from "../../kernel/runs/types.js";
import { withContinuity } from "./continuity.js";
import { orUnavailable } from "./redis-errors.js";
import { decodeEntry, decodeMetadata, type RawEntry } from "./stream-entries.js";

export interface FollowRequest {
  runId: string;
  key: string;
  /** The hash holding the run's first `metadata` event. */
  metadataKey: string;
  /** The commands connection (shared by the bridge). */
  redis: Redis;
  /** Opens this subscription's blocking connection; the caller tracks it for `close()`. */
  openBlocking(): Redis;
  /** Where to start: after this id, or from the earliest retained event when null. */
  start: string | null;
  /** The subscription ends when any of these aborts (the caller's, the bridge's close). */
  signals: ReadonlyArray<AbortSignal | undefined>;
  pageSize: number;
  blockMs: number;
}

export async function* followRunStream(request: FollowRequest): AsyncGenerator<StreamEvent> {
  const { runId, key, redis, pageSize } = request;
  let blocking: Redis | undefined;
  const what = `reading the stream of run \`${runId}\``;
  /** A page as the follower gets it: continuity-checked, and led by `metadata` when joining from the start. */
  const deliver = async (raw: readonly RawEntry[], cursor: string | null, signal: AbortSignal): Promise<LoggedEvent[] | undefined> => {
    const entries = raw.map((entry) => decodeEntry(runId, entry));
    const first = entries[0];
    if (cursor !== null || !first || first.event.event === "metadata" || first.prev === ZERO_EVENT_ID) return withContinuity(entries, cursor);
    // Joining from the start, and the run's first events were trimmed: lead with its first `metadata`.
    const hash = await untilAborted(orUnavailable(what, redis.hgetall(request.metadataKey)), signal);
    if (hash === undefined) return undefined;
    const metadata = decodeMetadata(runId, hash);
    if (!metadata || compareEventIds(metadata.event.id, first.event.id) >= 0) return withContinuity(entries, cursor);
    return [{ event: metadata.event, prev: ZERO_EVENT_ID }, { event: first.event, prev: metadata.event.id }, ...withContinuity(entries.slice(1), first.event.id)];
  };
  const source: LogSource = {
    pageSize,
    readAfter: async (cursor, signal) => {
      const page = await untilAborted(orUnavailable(what, redis.xrange(key, cursor === null ? "-" : `(${cursor}`, "+", "COUNT", pageSize)), signal);
      return page && deliver(page, cursor, signal);
    },
    range: (signal) => untilAborted(orUnavailable(what, retainedRange(redis, key)), signal),
    waitAfter: async (cursor, signal) => {
      // Opened only once the replay caught up with a run that has not ended.
      blocking ??= request.openBlocking();
      const reply = await untilAborted(orUnavailable(what, blocking.xread("COUNT", pageSize, "BLOCK", request.blockMs, "STREAMS", key, cursor ?? ZERO_EVENT_ID)), signal);
      if (reply === undefined) return undefined;
      return reply === null ? [] : deliver(reply[0]?.[1] ?? [], cursor, signal); // null: BLOCK timed out, nothing new yet
    },
  };
  try {
    yield* followLog(runId, source, request.start, request.signals);
  } finally {
    blocking?.disconnect();
  }
}

/** The earliest and latest retained ids, and whether the latest is `end`. */
async function retainedRange(redis: Redis, key: string): Promise<LogRange> {
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
