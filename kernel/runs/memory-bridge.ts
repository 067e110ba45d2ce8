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
 */
import { KeelError } from "../errors.js";
import { systemClock, type Clock } from "../loop/run-scope.js";
import { assertEventId, compareEventIds, EventIdSequence, ZERO_EVENT_ID } from "./stream-event-id.js";
import { type RetainedRange } from "./stream-gap.js";
import { followLog, type LogSource } from "./follow-log.js";
import { ControlHandlers } from "./control-handlers.js";
import { assertPublishable, readRetentionOptions, type RetentionTimers } from "./bridge-options.js";
import type { ControlMessage, PublishOptions, StreamBridge, StreamEvent, SubscribeOptions } from "./types.js";

export { compareEventIds, isEventId } from "./stream-event-id.js";
export type { RetentionTimers } from "./bridge-options.js";

export interface MemoryStreamBridgeOptions {
  /** Newest events kept per run; older ones are dropped (a cursor among them gets `gap`). Default 1,024. */
  retention?: number;
  /** How long a run's log is kept after `end`, in ms. Default 24 h. */
  retentionAfterEndMs?: number;
  /** Source of the `<ms>` part of ids. Default `Date.now()`. */
  clock?: Clock;
  /** Schedules the after-`end` drop. Default: unref'ed `setTimeout` (never keeps the process alive). */
  timers?: RetentionTimers;
  /** A control handler threw. Default: a process warning (the other handlers still run). */
  onControlError?: (error: unknown, runId: string) => void;
}

/** What the bridge holds in memory (the metrics gauges read it at scrape time). */
export interface MemoryBridgeStats {
  /** Runs whose log is kept (live, or ended and within `retentionAfterEndMs`). */
  runs: number;
  /** Events kept over all those runs. */
  events: number;
  /** Approximate bytes of those events: their id, name and data as JSON (UTF-8). */
  bytes: number;
}

/** Each event's size, measured once when a scrape first sees it (never on the publish path). */
const eventBytes = new WeakMap<StreamEvent, number>();

function sizeOf(event: StreamEvent): number {
  let bytes = eventBytes.get(event);
  if (bytes === undefined) {
    let data = 0;
    try {
      data = Buffer.byteLength(JSON.stringify(event.data) ?? "", "utf8");
    } catch {
      // Not JSON-serializable (the bridge asks for JSON data): counted without its data.
    }
    bytes = Buffer.byteLength(event.id) + Buffer.byteLength(event.event) + data;
    eventBytes.set(event, bytes);
  }
  return bytes;
}

interface RunLog {
  events: StreamEvent[];
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
    ended.cancelDrop = this.timers.schedule(() => {
      if (this.logs.get(runId) === ended) this.logs.delete(runId);
    }, this.retentionAfterEndMs);
    return record;
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StreamEvent> {
    // Checked here, not at the first `next()`, so a gateway can answer 400 before it starts an SSE response.
    this.assertOpen();
    if (options.lastEventId !== undefined) assertEventId(options.lastEventId, "Last-Event-ID");
    return followLog(runId, this.sourceOf(runId), options.lastEventId ?? null, [this.closing.signal, options.signal]);
  }

  async read(runId: string): Promise<StreamEvent[]> {
    this.assertOpen();
    return [...(this.logs.get(runId)?.events ?? [])];
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const runId of runIds) {
      this.logs.get(runId)?.cancelDrop?.();
      this.logs.delete(runId);
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

  /** Runs, events and approximate bytes held now: O(events kept), each event measured once. */
  stats(): MemoryBridgeStats {
    let events = 0;
    let bytes = 0;
    for (const log of this.logs.values()) {
      events += log.events.length;
      for (const event of log.events) bytes += sizeOf(event);
    }
    return { runs: this.logs.size, events, bytes };
  }

  /** Ends every subscription, cancels the drop timers and forgets every log. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const log of this.logs.values()) log.cancelDrop?.();
    this.logs.clear();
    this.control.clear();
    for (const runId of [...this.waiters.keys()]) this.wake(runId);
  }

  private append(runId: string, event: string, data: unknown, epoch: number | undefined): StreamEvent {
    this.assertOpen();
    let log = this.logs.get(runId);
    if (!log) {
      log = { events: [], droppedThrough: ZERO_EVENT_ID, ids: new EventIdSequence(), ended: false };
      this.logs.set(runId, log);
    }
    if (log.ended) throw new KeelError("KEEL_ERR_STREAM_ENDED", `run \`${runId}\` already ended its stream; \`${event}\` was not published`);
    // The epoch fence, as on the Redis bridge: an event of an older lease epoch than the run's newest is refused.
    if (epoch !== undefined && log.epoch !== undefined && epoch < log.epoch) {
      throw new KeelError("KEEL_ERR_STREAM_FENCED", `run \`${runId}\` already has events of lease epoch ${log.epoch}; \`${event}\` of epoch ${epoch} was refused`);
    }
    if (epoch !== undefined) log.epoch = epoch;
    const record: StreamEvent = { id: log.ids.next(this.clock.now()), runId, event, data, ...(epoch === undefined ? {} : { epoch }) };
    log.events.push(record);
    const excess = log.events.length - this.retention;
    if (excess > 0) log.droppedThrough = log.events.splice(0, excess)[excess - 1]!.id;
    this.wake(runId);
    return record;
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
