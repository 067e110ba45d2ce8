/**
 * The StreamBridge on Redis Streams, for several workers: any worker can publish to,
 * replay and follow any run's stream, and cancel a run another worker owns.
 *
 * Writes are pipelined (stream-writer.ts): `publish` queues, and a run's queue goes to
 * Redis as one script call per batch, in call order, flushed `flushMs` after its first
 * event, at `maxBatch` events and at once for `end`.
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
import { readLastEventId } from "../../kernel/runs/stream-event-id.js";
import type { ControlMessage, PublishOptions, StreamBridge, StreamEvent, SubscribeOptions } from "../../kernel/runs/types.js";
import { closeConnection, RedisControlChannel } from "./control-channel.js";
import { followRunStream } from "./follow-stream.js";
import { eventsKey, metadataKey } from "./keys.js";
import { orUnavailable } from "./redis-errors.js";
import { decodeEntry, encodeData } from "./stream-entries.js";
import { StreamWriter } from "./stream-writer.js";

export interface RedisStreamBridgeOptions {
  /** Newest events kept per run (`XADD … MAXLEN n`, exact). Default 10,000. */
  maxLen?: number;
  /** Expiry of a run's stream after `end`, in seconds. Default 86,400 (24 h). */
  ttlSeconds?: number;
  /** Longest single XREAD BLOCK of a following subscription, in ms. Default 5,000. */
  blockMs?: number;
  /** Entries per XRANGE / XREAD round trip. Default 1,024. */
  pageSize?: number;
  /** How long a run's first queued event waits for more before its batch is sent, in ms (0: at once). Default 2. */
  flushMs?: number;
  /** Most events per write round trip (one append script). Default 512. */
  maxBatch?: number;
  /** Most write batches of one run in flight at once (answered in order on one connection). Default 4. */
  maxInFlight?: number;
  /**
   * Passed to ioredis for every connection (the URL still decides host, port, password).
   * The bridge's default `maxRetriesPerRequest` is 1, so a command fails fast
   * (`KEEL_ERR_STREAM_UNAVAILABLE`, 503 at the gateway) while Redis is down.
   */
  redis?: RedisOptions;
  /** A control handler threw. Default: a process warning. */
  onControlError?: (error: unknown, runId: string) => void;
}

/** ioredis is an optional peer dependency: loaded by the first bridge (`--redis`), never by importing this module. */
export function loadIoredis(): typeof import("ioredis") {
  return requireOptional<typeof import("ioredis")>("ioredis", "a Redis stream bridge (`--redis`)");
}

export const REDIS_STREAM_DEFAULTS = { maxLen: 10_000, ttlSeconds: 86_400, blockMs: 5_000, pageSize: 1024, flushMs: 2, maxBatch: 512, maxInFlight: 4 } as const;

function integerOption(options: RedisStreamBridgeOptions, name: keyof typeof REDIS_STREAM_DEFAULTS, minimum = 1): number {
  const value = options[name] ?? REDIS_STREAM_DEFAULTS[name];
  if (!Number.isInteger(value) || value < minimum) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream-redis \`${name}\` must be an integer ≥ ${minimum}, got \`${value}\``, { pointer: `/${name}` });
  }
  return value;
}

/** ioredis connection states in which no command can be answered until Redis is back. */
const LOST_STATUSES = new Set(["reconnecting", "close", "end"]);

export class RedisStreamBridge implements StreamBridge {
  /** Publishes not awaited one by one keep their call order (they are batched per run). */
  readonly orderedPublish = true;
  private readonly redis: Redis;
  private readonly writer: StreamWriter;
  private readonly control: RedisControlChannel;
  private readonly maxLen: number;
  private readonly ttlSeconds: number;
  private readonly blockMs: number;
  private readonly pageSize: number;
  /** Aborted by `close()`: every subscription listens to it. */
  private readonly closing = new AbortController();
  private readonly blockingConnections = new Set<Redis>();

  constructor(url: string, options: RedisStreamBridgeOptions = {}) {
    this.maxLen = integerOption(options, "maxLen");
    this.ttlSeconds = integerOption(options, "ttlSeconds");
    this.blockMs = integerOption(options, "blockMs");
    this.pageSize = integerOption(options, "pageSize");
    const flushMs = integerOption(options, "flushMs", 0);
    const maxBatch = integerOption(options, "maxBatch");
    const maxInFlight = integerOption(options, "maxInFlight");
    this.redis = new (loadIoredis().Redis)(url, { maxRetriesPerRequest: 1, ...options.redis });
    warnOncePerOutage(this.redis);
    this.writer = new StreamWriter(this.redis, { maxLen: this.maxLen, ttlSeconds: this.ttlSeconds, flushMs, maxBatch, maxInFlight });
    this.control = new RedisControlChannel(this.redis, options.onControlError);
  }

  async publish(runId: string, event: string, data: unknown, options?: PublishOptions): Promise<StreamEvent> {
    assertPublishable(event);
    return this.append(runId, event, data === undefined ? null : data, false, options?.epoch);
  }

  /**
   * Appends `end` after every event published before it and sets the stream to expire
   * after `ttlSeconds`; a second call returns the first `end`. Sent at once, not on the timer.
   */
  async end(runId: string, options?: PublishOptions): Promise<StreamEvent> {
    return this.append(runId, "end", null, true, options?.epoch);
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StreamEvent> {
    this.assertOpen();
    // Checked here, not at the first `next()`, so a gateway can answer 400 before it starts an SSE response.
    const start = readLastEventId(options.lastEventId);
    return followRunStream({
      runId,
      key: eventsKey(runId),
      metadataKey: metadataKey(runId),
      redis: this.redis,
      openBlocking: () => this.openBlocking(),
      start,
      signals: [this.closing.signal, options.signal],
      pageSize: this.pageSize,
      blockMs: this.blockMs,
    });
  }

  async readLatest(runId: string, count: number): Promise<StreamEvent[]> {
    this.assertOpen();
    if (count <= 0) return [];
    const page = await orUnavailable(`reading the stream of run \`${runId}\``, this.redis.xrevrange(eventsKey(runId), "+", "-", "COUNT", count));
    return page.reverse().map((entry) => decodeEntry(runId, entry).event);
  }

  async read(runId: string): Promise<StreamEvent[]> {
    this.assertOpen();
    const key = eventsKey(runId);
    const events: StreamEvent[] = [];
    for (let from = "-"; ; ) {
      const page = await orUnavailable(`reading the stream of run \`${runId}\``, this.redis.xrange(key, from, "+", "COUNT", this.pageSize));
      for (const entry of page) events.push(decodeEntry(runId, entry).event);
      if (page.length < this.pageSize) return events;
      from = `(${page[page.length - 1]![0]}`;
    }
  }

  /**
   * Readiness: KEEL_ERR_STREAM_UNAVAILABLE at once while the connection is lost (Redis down:
   * reconnecting, closed), else one PING (a connection still being opened answers it once ready).
   */
  async ping(): Promise<void> {
    this.assertOpen();
    if (LOST_STATUSES.has(this.redis.status)) throw new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", `Redis is not connected (${this.redis.status})`);
    await orUnavailable("pinging Redis", this.redis.ping());
  }

  /** Deletes the runs' streams and first-metadata hashes, after every write already queued (one `DEL` per 256 runs). */
  async deleteRuns(runIds: readonly string[]): Promise<void> {
    this.assertOpen();
    await this.writer.flushAll().catch(() => undefined); // each publish got its own failure
    for (let i = 0; i < runIds.length; i += 256) {
      const keys = runIds.slice(i, i + 256).flatMap((runId) => [eventsKey(runId), metadataKey(runId)]);
      await orUnavailable(`deleting the streams of ${keys.length / 2} run(s)`, this.redis.del(...keys));
    }
  }

  async publishControl(runId: string, message: ControlMessage): Promise<void> {
    this.assertOpen();
    await orUnavailable(`sending a control message to run \`${runId}\``, this.control.publish(runId, message));
  }

  async onControl(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    return orUnavailable(`subscribing to the control messages of run \`${runId}\``, this.control.listen(runId, handler));
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    // Events queued before close() are still written (QUIT below waits for their replies).
    const flushed = this.writer.flushAll();
    for (const connection of this.blockingConnections) connection.disconnect();
    this.blockingConnections.clear();
    await this.control.close();
    await flushed.catch(() => undefined); // each publish got its own failure
    await closeConnection(this.redis);
  }

  private append(runId: string, event: string, data: unknown, isEnd: boolean, epoch: number | undefined): Promise<StreamEvent> {
    this.assertOpen();
    return this.writer.write(runId, event, data, encodeData(data), isEnd, epoch);
  }

  private openBlocking(): Redis {
    const connection = this.redis.duplicate();
    connection.on("error", () => undefined); // its failures reach the subscription as KEEL_ERR_STREAM_UNAVAILABLE
    this.blockingConnections.add(connection);
    connection.once("end", () => this.blockingConnections.delete(connection));
    return connection;
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new KeelError("KEEL_ERR_STREAM_CLOSED", "the Redis stream bridge is closed");
  }
}

/**
 * Connection errors: every failed command already rejects (KEEL_ERR_STREAM_UNAVAILABLE);
 * the connection's own `error` events (one per reconnect attempt) give one process
 * warning per outage instead of ioredis' line per attempt.
 */
function warnOncePerOutage(connection: Redis): void {
  let warned = false;
  connection.on("ready", () => (warned = false));
  connection.on("error", (error: Error) => {
    if (warned) return;
    warned = true;
    process.emitWarning(`stream-redis: Redis connection failed (${error.message}); publishing and reading fail with KEEL_ERR_STREAM_UNAVAILABLE until it is back`);
  });
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
