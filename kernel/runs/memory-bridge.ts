/**
 * The in-process StreamBridge: one ordered log per run, for a single worker (`keel
 * serve` with the default setup, tests, embedded use). Several workers need the Redis
 * bridge (`plugins/stream-redis`), which passes the same conformance suite.
 *
 * Events are kept by reference (no copy per subscriber, unlike Redis, which returns
 * parsed JSON): publish JSON-serializable data and do not mutate it afterwards.
 *
 * Heartbeats are not the bridge's job: the gateway writes SSE `: heartbeat` comments on
 * idle connections; a subscription simply waits.
 *
 * Memory is bounded twice: at most `retention` events per run, and at most `maxBytes`
 * over all runs (each event measured once, at publish). Over the byte budget, ended
 * runs' logs go first (the oldest ended first), then the oldest events of live runs; a
 * cursor among evicted events gets `gap`, as with the event cap. An event larger than
 * `maxEventBytes` is stored with its data replaced by a truncation marker
 * (`truncatedEventData`).
 */
import { KeelError } from "../errors.js";
import { systemClock, type Clock } from "../loop/run-scope.js";
import { compareEventIds, EventIdSequence, readLastEventId, ZERO_EVENT_ID } from "./stream-event-id.js";
import { type RetainedRange } from "./stream-gap.js";
import { followLog, type LogSource } from "./follow-log.js";
import { ControlHandlers } from "./control-handlers.js";
import { FEED_LOG_ID } from "./feed-log-id.js";
import { assertPublishable, readMemoryBudget, readRetentionOptions, type RetentionTimers } from "./bridge-options.js";
import type { ControlMessage, PublishOptions, StreamBridge, StreamEvent, SubscribeOptions } from "./types.js";

export { compareEventIds, isEventId } from "./stream-event-id.js";
export type { RetentionTimers } from "./bridge-options.js";
export { MEMORY_BRIDGE_MAX_BYTES, MEMORY_BRIDGE_MAX_EVENT_BYTES } from "./bridge-options.js";

export interface MemoryStreamBridgeOptions {
  /** Newest events kept per run; older ones are dropped (a cursor among them gets `gap`). Default 1,024. */
  retention?: number;
  /** How long a run's log is kept after `end`, in ms. Default 24 h. */
  retentionAfterEndMs?: number;
  /**
   * Byte budget over every run's events (id, name and JSON data). Over it, ended runs'
   * logs are evicted first (oldest ended first), then the oldest events of live runs.
   * Default 64 MiB; at least `maxEventBytes`.
   */
  maxBytes?: number;
  /** An event whose data is larger is stored truncated (`truncatedEventData`). Default 1 MiB; at least 1,024. */
  maxEventBytes?: number;
  /** Source of the `<ms>` part of ids. Default `Date.now()`. */
  clock?: Clock;
  /** Schedules the after-`end` drop. Default: unref'ed `setTimeout` (never keeps the process alive). */
  timers?: RetentionTimers;
  /** A control handler threw. Default: a process warning (the other handlers still run). */
  onControlError?: (error: unknown, runId: string) => void;
}

/** What the bridge holds in memory (the metrics gauges read it at scrape time). */
export interface MemoryBridgeStats {
  /** Runs whose log is kept (live, or ended and within `retentionAfterEndMs`); the run-status feed's log is not a run. */
  runs: number;
  /** Events kept over all those runs (not the feed's). */
  events: number;
  /** Approximate bytes of every event held, the feed's included: their id, name and data as JSON (UTF-8). */
  bytes: number;
}

/** Bytes an event is counted for besides its id, name and data (the record, the array slot). */
const EVENT_OVERHEAD_BYTES = 64;

/** The JSON size of `data` in UTF-8 bytes (0 when it is not JSON-serializable). */
function jsonBytes(data: unknown): { json: string; bytes: number } {
  let json = "";
  try {
    json = JSON.stringify(data) ?? "";
  } catch {
    // Not JSON-serializable (the bridge asks for JSON data): counted without its data.
  }
  return { json, bytes: Buffer.byteLength(json, "utf8") };
}

/** The code of a truncated event's data. */
export const TRUNCATED_EVENT_CODE = "stream_event_truncated";
/** Characters of the original JSON kept in a truncated event's `preview` (the marker stays under 1 KiB). */
export const TRUNCATED_PREVIEW_CHARS = 256;

/** The data stored instead of an event's data over `maxEventBytes` (docs/http.md, "SSE", shows it). */
export interface TruncatedEventData {
  code: typeof TRUNCATED_EVENT_CODE;
  /** UTF-8 bytes of the original data as JSON. */
  bytes: number;
  /** The bridge's `maxEventBytes`. */
  limit: number;
  /** The first 256 characters of the original JSON. */
  preview: string;
  /** What a client should do: read the thread's state (`GET /threads/:tid/state`). */
  recovery: "reload_durable_state";
}

/** The truncation marker for an event whose data as JSON (`json`, `bytes` long) is over `limit`. */
export function truncatedEventData(json: string, bytes: number, limit: number): TruncatedEventData {
  return { code: TRUNCATED_EVENT_CODE, bytes, limit, preview: json.slice(0, TRUNCATED_PREVIEW_CHARS), recovery: "reload_durable_state" };
}

interface RunLog {
  events: StreamEvent[];
  /** The counted size of each event in `events` (same order). */
  sizes: number[];
  /** Sum of `sizes`. */
  bytes: number;
  /** Id of the newest event dropped by retention (`0-0` while none was): the `prev` of `events[0]`. */
  droppedThrough: string;
  ids: EventIdSequence;
  ended: boolean;
  /** The newest lease epoch published under (the fence). */
  epoch?: number;
  cancelDrop?: () => void;
}

/**
 * @example
 * const bridge = new MemoryStreamBridge();
 * await bridge.publish("run-1", "values", { messages: [] });
 * await bridge.end("run-1");
 * for await (const e of bridge.subscribe("run-1")) console.log(e.id, e.event); // …, "end"
 */
export class MemoryStreamBridge implements StreamBridge {
  private readonly logs = new Map<string, RunLog>();
  /** Ended logs in the order they ended (oldest first): evicted first when over the byte budget. */
  private readonly endedOrder = new Map<string, RunLog>();
  /** Bytes of every event held (sum of the logs' `bytes`). */
  private heldBytes = 0;
  private readonly maxBytes: number;
  private readonly maxEventBytes: number;
  /** Subscriptions waiting for the next event of a run (also for runs with no log yet). */
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly control: ControlHandlers;
  private readonly retention: number;
  private readonly retentionAfterEndMs: number;
  private readonly clock: Clock;
  private readonly timers: RetentionTimers;
  /** Aborted by `close()`: every subscription listens to it. */
  private readonly closing = new AbortController();

  constructor(options: MemoryStreamBridgeOptions = {}) {
    const read = readRetentionOptions(options, 1024);
    this.retention = read.retention;
    this.retentionAfterEndMs = read.retentionAfterEndMs;
    this.timers = read.timers;
    const budget = readMemoryBudget(options);
    this.maxBytes = budget.maxBytes;
    this.maxEventBytes = budget.maxEventBytes;
    this.clock = options.clock ?? systemClock;
    this.control = new ControlHandlers(options.onControlError);
  }

  async publish(runId: string, event: string, data: unknown, options?: PublishOptions): Promise<StreamEvent> {
    assertPublishable(event);
    return this.append(runId, event, data === undefined ? null : data, options?.epoch);
  }

  async end(runId: string, options?: PublishOptions): Promise<StreamEvent> {
    const log = this.logs.get(runId);
    // Idempotent: finalization and shutdown may both end a run; the first `end` stands.
    if (log?.ended) return log.events[log.events.length - 1]!;
    const record = this.append(runId, "end", null, options?.epoch);
    const ended = this.logs.get(runId)!;
    ended.ended = true;
    this.endedOrder.set(runId, ended);
    ended.cancelDrop = this.timers.schedule(() => {
      if (this.logs.get(runId) === ended) this.dropLog(runId);
    }, this.retentionAfterEndMs);
    return record;
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StreamEvent> {
    // Checked here, not at the first `next()`, so a gateway can answer 400 before it starts an SSE response.
    this.assertOpen();
    const start = readLastEventId(options.lastEventId);
    return followLog(runId, this.sourceOf(runId), start, [this.closing.signal, options.signal]);
  }

  async read(runId: string): Promise<StreamEvent[]> {
    this.assertOpen();
    return [...(this.logs.get(runId)?.events ?? [])];
  }

  async readLatest(runId: string, count: number): Promise<StreamEvent[]> {
    this.assertOpen();
    const events = this.logs.get(runId)?.events ?? [];
    return count <= 0 ? [] : events.slice(-count);
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const runId of runIds) {
      this.dropLog(runId);
      this.wake(runId);
    }
  }

  async publishControl(runId: string, message: ControlMessage): Promise<void> {
    this.assertOpen();
    this.control.deliver(runId, message);
  }

  async onControl(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const remove = this.control.add(runId, handler);
    return async () => remove();
  }

  /** Runs, events and approximate bytes held now (each event was measured once, at publish). */
  stats(): MemoryBridgeStats {
    let events = 0;
    let runs = 0;
    for (const [id, log] of this.logs) {
      if (id === FEED_LOG_ID) continue;
      runs += 1;
      events += log.events.length;
    }
    return { runs, events, bytes: this.heldBytes };
  }

  /** Ends every subscription, cancels the drop timers and forgets every log. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const log of this.logs.values()) log.cancelDrop?.();
    this.logs.clear();
    this.endedOrder.clear();
    this.heldBytes = 0;
    this.control.clear();
    for (const runId of [...this.waiters.keys()]) this.wake(runId);
  }

  private append(runId: string, event: string, data: unknown, epoch: number | undefined): StreamEvent {
    this.assertOpen();
    let log = this.logs.get(runId);
    if (!log) {
      log = { events: [], sizes: [], bytes: 0, droppedThrough: ZERO_EVENT_ID, ids: new EventIdSequence(), ended: false };
      this.logs.set(runId, log);
    }
    if (log.ended) throw new KeelError("KEEL_ERR_STREAM_ENDED", `run \`${runId}\` already ended its stream; \`${event}\` was not published`);
    // The epoch fence, as on the Redis bridge: an event of an older lease epoch than the run's newest is refused.
    if (epoch !== undefined && log.epoch !== undefined && epoch < log.epoch) {
      throw new KeelError("KEEL_ERR_STREAM_FENCED", `run \`${runId}\` already has events of lease epoch ${log.epoch}; \`${event}\` of epoch ${epoch} was refused`);
    }
    if (epoch !== undefined) log.epoch = epoch;
    const id = log.ids.next(this.clock.now());
    let measured = jsonBytes(data);
    let stored = data;
    if (measured.bytes > this.maxEventBytes) {
      stored = truncatedEventData(measured.json, measured.bytes, this.maxEventBytes);
      measured = jsonBytes(stored);
    }
    const record: StreamEvent = { id, runId, event, data: stored, ...(epoch === undefined ? {} : { epoch }) };
    const size = EVENT_OVERHEAD_BYTES + id.length + Buffer.byteLength(event, "utf8") + measured.bytes;
    log.events.push(record);
    log.sizes.push(size);
    log.bytes += size;
    this.heldBytes += size;
    const excess = log.events.length - this.retention;
    if (excess > 0) this.dropOldest(log, excess);
    if (this.heldBytes > this.maxBytes) this.evictOverBudget(log);
    this.wake(runId);
    return record;
  }

  /** Drop the `count` oldest events of a log (their ids move into `droppedThrough`). */
  private dropOldest(log: RunLog, count: number): void {
    // `shift()` one at a time: V8 trims an array's front in place (a `splice` copies it).
    let freed = 0;
    for (let i = 0; i < count; i++) {
      log.droppedThrough = log.events.shift()!.id;
      freed += log.sizes.shift()!;
    }
    log.bytes -= freed;
    this.heldBytes -= freed;
  }

  /** Forget a run's log and its bytes. */
  private dropLog(runId: string): void {
    const log = this.logs.get(runId);
    if (!log) return;
    log.cancelDrop?.();
    this.logs.delete(runId);
    this.endedOrder.delete(runId);
    this.heldBytes -= log.bytes;
  }

  /**
   * Back under `maxBytes`: whole ended logs, oldest ended first; then, one at a time, the
   * oldest event of any live log (by id: the `<ms>` part is the publish time), never the
   * event just published (`keep`'s newest), which fits since `maxBytes ≥ maxEventBytes`.
   */
  private evictOverBudget(keep: RunLog): void {
    for (const runId of this.endedOrder.keys()) {
      if (this.heldBytes <= this.maxBytes) return;
      this.dropLog(runId);
    }
    while (this.heldBytes > this.maxBytes) {
      let oldest: RunLog | undefined;
      for (const log of this.logs.values()) {
        const candidates = log === keep ? log.events.length - 1 : log.events.length;
        if (candidates > 0 && (!oldest || compareEventIds(log.events[0]!.id, oldest.events[0]!.id) < 0)) oldest = log;
      }
      if (!oldest) return;
      this.dropOldest(oldest, 1);
    }
  }

  /**
   * The run's log as a follower reads it, answered in place (no Promise but the wait):
   * everything after the cursor at once, so a slow subscriber keeps its snapshot.
   */
  private sourceOf(runId: string): LogSource {
    return {
      pageSize: Number.POSITIVE_INFINITY,
      readAfter: (cursor, signal) => {
        if (signal.aborted) return undefined;
        const log = this.logs.get(runId);
        if (!log) return [];
        const from = firstAfter(log.events, cursor);
        return log.events.slice(from).map((event, i) => ({ event, prev: from + i === 0 ? log.droppedThrough : log.events[from + i - 1]!.id }));
      },
      range: (signal) => {
        if (signal.aborted) return undefined;
        const log = this.logs.get(runId);
        return log ? { ...retainedRange(log), ended: log.ended } : { earliest: null, latest: null, ended: false };
      },
      waitAfter: (cursor, signal) => {
        if (signal.aborted) return undefined;
        // Checked and registered in one synchronous step, so an event published meanwhile cannot be missed.
        const log = this.logs.get(runId);
        if (log && firstAfter(log.events, cursor) < log.events.length) return [];
        return this.nextEvent(runId, signal);
      },
    };
  }

  /** Resolves on the run's next event (with `[]`: read again), or on abort (with undefined). */
  private nextEvent(runId: string, signal: AbortSignal): Promise<[] | undefined> {
    return new Promise((resolve) => {
      let set = this.waiters.get(runId);
      if (!set) this.waiters.set(runId, (set = new Set()));
      const waiters = set;
      const done = () => {
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(runId) === waiters) this.waiters.delete(runId);
        signal.removeEventListener("abort", done);
        resolve(signal.aborted ? undefined : []);
      };
      waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private wake(runId: string): void {
    for (const done of [...(this.waiters.get(runId) ?? [])]) done();
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new KeelError("KEEL_ERR_STREAM_CLOSED", "the stream bridge is closed");
  }
}

/** Index of the first event after `cursor` (binary search; the log is sorted by id). */
function firstAfter(events: readonly StreamEvent[], cursor: string | null): number {
  if (cursor === null) return 0;
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareEventIds(events[mid]!.id, cursor) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function retainedRange(log: RunLog): RetainedRange {
  return { earliest: log.events[0]?.id ?? null, latest: log.events[log.events.length - 1]?.id ?? null };
}
