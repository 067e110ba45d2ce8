/**
 * The StreamBridge on Redis Streams, for several workers: any worker can publish to,
 * replay and follow any run's stream, and cancel a run another worker owns.
 *
 * Connections: one for commands (shared), one pub/sub subscriber (opened by the first
 * `onControl`), and one per live subscription while it follows (see follow-stream.ts).
 * `close()` ends every subscription and closes every connection, so nothing keeps the
 * process alive.
 */
import type { Redis, RedisOptions } from "ioredis";
import { KeelError } from "../../kernel/errors.js";
import { requireOptional } from "../../kernel/optional-import.js";
import { assertPublishable } from "../../kernel/runs/bridge-options.js";
import { assertEventId } from "../../kernel/runs/stream-event-id.js";
import type { ControlMessage, StreamBridge, StreamEvent, SubscribeOptions } from "../../kernel/runs/types.js";
import { appendEntry, defineAppendScript } from "./append-script.js";
import { closeConnection, RedisControlChannel } from "./control-channel.js";
import { followRunStream } from "./follow-stream.js";
import { eventsKey } from "./keys.js";
import { decodeEntry, encodeData } from "./stream-entries.js";

export interface RedisStreamBridgeOptions {
  /** Newest events kept per run (`XADD … MAXLEN n`, exact). Default 10,000. */
  maxLen?: number;
  /** Expiry of a run's stream after `end`, in seconds. Default 86,400 (24 h). */
  ttlSeconds?: number;
  /** Longest single XREAD BLOCK of a following subscription, in ms. Default 5,000. */
  blockMs?: number;
  /** Entries per XRANGE / XREAD round trip. Default 512. */
  pageSize?: number;
  /** Passed to ioredis for every connection (the URL still decides host, port, password). */
  redis?: RedisOptions;
  /** A control handler threw. Default: a process warning. */
  onControlError?: (error: unknown, runId: string) => void;
}

/** ioredis is an optional peer dependency: loaded by the first bridge (`--redis`), never by importing this module. */
export function loadIoredis(): typeof import("ioredis") {
  return requireOptional<typeof import("ioredis")>("ioredis", "a Redis stream bridge (`--redis`)");
}

export const REDIS_STREAM_DEFAULTS = { maxLen: 10_000, ttlSeconds: 86_400, blockMs: 5_000, pageSize: 512 } as const;

function positiveInteger(options: RedisStreamBridgeOptions, name: keyof typeof REDIS_STREAM_DEFAULTS): number {
  const value = options[name] ?? REDIS_STREAM_DEFAULTS[name];
  if (!Number.isInteger(value) || value < 1) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream-redis \`${name}\` must be an integer ≥ 1, got \`${value}\``, { pointer: `/${name}` });
  }
  return value;
}

export class RedisStreamBridge implements StreamBridge {
  private readonly redis: Redis;
  private readonly control: RedisControlChannel;
  private readonly maxLen: number;
  private readonly ttlSeconds: number;
  private readonly blockMs: number;
  private readonly pageSize: number;
  /** Aborted by `close()`: every subscription listens to it. */
  private readonly closing = new AbortController();
  private readonly blockingConnections = new Set<Redis>();

  constructor(url: string, options: RedisStreamBridgeOptions = {}) {
    this.maxLen = positiveInteger(options, "maxLen");
    this.ttlSeconds = positiveInteger(options, "ttlSeconds");
    this.blockMs = positiveInteger(options, "blockMs");
    this.pageSize = positiveInteger(options, "pageSize");
    this.redis = new (loadIoredis().Redis)(url, options.redis ?? {});
    defineAppendScript(this.redis);
    this.control = new RedisControlChannel(this.redis, options.onControlError);
  }

  async publish(runId: string, event: string, data: unknown): Promise<StreamEvent> {
    assertPublishable(event);
    return this.append(runId, event, data === undefined ? null : data, false);
  }

  /** Appends `end` and sets the stream to expire after `ttlSeconds`; a second call returns the first `end`. */
  async end(runId: string): Promise<StreamEvent> {
    return this.append(runId, "end", null, true);
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StreamEvent> {
    this.assertOpen();
    // Checked here, not at the first `next()`, so a gateway can answer 400 before it starts an SSE response.
    if (options.lastEventId !== undefined) assertEventId(options.lastEventId, "Last-Event-ID");
    return followRunStream({
      runId,
      key: eventsKey(runId),
      redis: this.redis,
      openBlocking: () => this.openBlocking(),
      start: options.lastEventId ?? null,
      signals: [this.closing.signal, options.signal],
      pageSize: this.pageSize,
      blockMs: this.blockMs,
    });
  }

  async read(runId: string): Promise<StreamEvent[]> {
    this.assertOpen();
    const key = eventsKey(runId);
    const events: StreamEvent[] = [];
    for (let from = "-"; ; ) {
      const page = await this.redis.xrange(key, from, "+", "COUNT", this.pageSize);
      for (const entry of page) events.push(decodeEntry(runId, entry).event);
      if (page.length < this.pageSize) return events;
      from = `(${page[page.length - 1]![0]}`;
    }
  }

  async publishControl(runId: string, message: ControlMessage): Promise<void> {
    this.assertOpen();
    await this.control.publish(runId, message);
  }

  async onControl(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    return this.control.listen(runId, handler);
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    for (const connection of this.blockingConnections) connection.disconnect();
    this.blockingConnections.clear();
    await this.control.close();
    await closeConnection(this.redis);
  }

  private async append(runId: string, event: string, data: unknown, isEnd: boolean): Promise<StreamEvent> {
    this.assertOpen();
    const key = eventsKey(runId);
    const request = { key, runId, event, data: encodeData(data), isEnd, maxLen: this.maxLen, ttlSeconds: this.ttlSeconds };
    const id = await appendEntry(this.redis, request);
    return { id, runId, event, data };
  }

  private openBlocking(): Redis {
    const connection = this.redis.duplicate();
    this.blockingConnections.add(connection);
    connection.once("end", () => this.blockingConnections.delete(connection));
    return connection;
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new KeelError("KEEL_ERR_STREAM_CLOSED", "the Redis stream bridge is closed");
  }
}

/**
 * A StreamBridge on the Redis at `url` (`redis://[:password@]host:port[/db]`).
 *
 * @example
 * const bridge = createRedisStreamBridge("redis://127.0.0.1:6379", { maxLen: 10_000 });
 * await bridge.publish(runId, "values", { messages: [] });
 */
export function createRedisStreamBridge(url: string, options?: RedisStreamBridgeOptions): RedisStreamBridge {
  return new RedisStreamBridge(url, options);
}
