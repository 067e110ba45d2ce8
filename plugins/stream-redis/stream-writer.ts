/**
 * Pipelined event writes: `publish`/`end` only queue the event; per run, the queue is
 * sent as one append script (append-script.ts) `flushMs` after its first event, at once
 * when it holds `maxBatch` events or an `end`, and at once again when the previous batch
 * of the run is answered and more events are waiting. One batch per run is in flight at
 * a time, so a run's events reach Redis in call order whatever happens to a batch, and
 * the publisher's expected next number (`floor`) is exact. Each call's promise settles
 * with its own result: the stored event, `KEEL_ERR_STREAM_ENDED`, `KEEL_ERR_STREAM_FENCED`,
 * or `KEEL_ERR_STREAM_UNAVAILABLE` when the batch could not be written (the events of a
 * failed batch keep their numbers, so subscribers see `gap`, never a silent hole).
 */
import type { Redis } from "ioredis";
import { KeelError } from "../../kernel/errors.js";
import type { StreamEvent } from "../../kernel/runs/types.js";
import { appendBatch, type BatchEntry } from "./append-script.js";
import { eventsKey, metadataKey } from "./keys.js";
import { eventNumber } from "./continuity.js";
import { redisUnavailable } from "./redis-errors.js";

export interface WriterOptions {
  maxLen: number;
  ttlSeconds: number;
  /** How long the first event of a batch waits for company, in ms (0: send at once). */
  flushMs: number;
  /** Most events per append script. */
  maxBatch: number;
  /** Most batches of one run in flight at once (they are answered in order: one connection, plain EVAL). */
  maxInFlight: number;
}

interface Queued extends BatchEntry {
  runId: string;
  value: unknown;
  resolve(event: StreamEvent): void;
  reject(error: unknown): void;
}

interface RunQueue {
  waiting: Queued[];
  inFlight: number;
  timer: NodeJS.Timeout | null;
  /** The number the run's next event should get, as far as this writer knows (1: nothing known). */
  next: number;
  ended: boolean;
}

export class StreamWriter {
  private readonly queues = new Map<string, RunQueue>();
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly redis: Redis,
    private readonly options: WriterOptions,
  ) {}

  /** Queue one event of `runId`; resolves once Redis stored it (or refused it). */
  write(runId: string, event: string, value: unknown, json: string, isEnd: boolean, epoch: number | undefined): Promise<StreamEvent> {
    return new Promise<StreamEvent>((resolve, reject) => {
      let queue = this.queues.get(runId);
      if (!queue) this.queues.set(runId, (queue = { waiting: [], inFlight: 0, timer: null, next: 1, ended: false }));
      queue.waiting.push({ runId, event, value, data: json, isEnd, ...(epoch === undefined ? {} : { epoch }), resolve, reject });
      if (queue.inFlight >= this.options.maxInFlight) return; // sent when a batch in flight is answered
      if (isEnd || queue.waiting.length >= this.options.maxBatch || this.options.flushMs === 0) this.send(runId, queue);
      else queue.timer ??= setTimeout(() => queue.inFlight < this.options.maxInFlight && this.send(runId, queue), this.options.flushMs);
    });
  }

  /** Send everything queued now and resolve once every batch is answered. */
  async flushAll(): Promise<void> {
    for (;;) {
      for (const [runId, queue] of this.queues) if (queue.waiting.length > 0) this.send(runId, queue);
      if (this.sending.size === 0) return;
      await Promise.all(this.sending);
    }
  }

  private send(runId: string, queue: RunQueue): void {
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = null;
    if (queue.waiting.length === 0) return;
    const batch = queue.waiting.splice(0, this.options.maxBatch);
    const floor = queue.next;
    // The batch's numbers are taken whether it lands or not: a failed batch leaves a hole.
    queue.next += batch.length;
    queue.inFlight++;
    const request = { streamKey: eventsKey(runId), metadataKey: metadataKey(runId), maxLen: this.options.maxLen, ttlSeconds: this.options.ttlSeconds, floor, entries: batch };
    const sent: Promise<void> = appendBatch(this.redis, request)
      .then(
        (results) => this.settle(queue, batch, results),
        (error: unknown) => {
          const failure = redisUnavailable(`publishing ${batch.length} event(s) of run \`${runId}\` failed`, error);
          for (const item of batch) item.reject(failure);
        },
      )
      .finally(() => {
        this.sending.delete(sent);
        queue.inFlight--;
        if (queue.waiting.length > 0) this.send(runId, queue);
        else if (queue.ended && queue.inFlight === 0 && this.queues.get(runId) === queue) this.queues.delete(runId);
      });
    this.sending.add(sent);
  }
  private settle(queue: RunQueue, batch: readonly Queued[], results: readonly string[]): void {
    let refused = 0;
    let stored = 0;
    batch.forEach((item, i) => {
      const result = results[i] ?? "!missing";
      if (result.startsWith("!")) refused++;
      if (result === "!ended") {
        item.reject(new KeelError("KEEL_ERR_STREAM_ENDED", `run \`${item.runId}\` already ended its stream; \`${item.event}\` was not published`));
      } else if (result.startsWith("!fenced:")) {
        item.reject(new KeelError("KEEL_ERR_STREAM_FENCED", `run \`${item.runId}\` already has events of lease epoch ${result.slice(8)}; \`${item.event}\` of epoch ${item.epoch} was refused`));
      } else if (result.startsWith("!")) {
        item.reject(redisUnavailable(`publishing \`${item.event}\` of run \`${item.runId}\` got no result`, new Error(result)));
      } else {
        stored = Math.max(stored, eventNumber(result));
        if (item.isEnd) queue.ended = true;
        item.resolve({ id: result, runId: item.runId, event: item.event, data: item.value, ...(item.epoch === undefined ? {} : { epoch: item.epoch }) });
      }
    });
    // A refused event was never meant to be stored: it takes no number (unlike a failed batch's).
    queue.next = Math.max(queue.next - refused, stored + 1);
  }
}
