import type { Manifest } from "../../kernel/plugin/types.js";
import { REDIS_STREAM_DEFAULTS } from "./redis-bridge.js";

/** The port this plugin provides: a StreamBridge (kernel/runs/types.ts). */
export const STREAM_BRIDGE_PORT = "stream-bridge";

/** JSON Schema of the stream-redis options (defaults are applied when the stack is built). */
export const streamRedisConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    url: {
      type: "string",
      minLength: 1,
      default: "redis://127.0.0.1:6379",
      description: "Redis to keep the streams in: `redis://[:password@]host:port[/db]` (`rediss://` for TLS).",
    },
    maxLen: {
      type: "integer",
      minimum: 1,
      default: REDIS_STREAM_DEFAULTS.maxLen,
      description: "Newest events kept per run (exact `XADD … MAXLEN`); a cursor older than these gets a `gap` event.",
    },
    ttlSeconds: {
      type: "integer",
      minimum: 1,
      default: REDIS_STREAM_DEFAULTS.ttlSeconds,
      description: "How long a run's stream stays readable after its `end` event, in seconds.",
    },
    flushMs: {
      type: "integer",
      minimum: 0,
      default: REDIS_STREAM_DEFAULTS.flushMs,
      description: "How long a run's first queued event waits for more before its batch is written, in ms (0: at once); `end` is always written at once.",
    },
    maxBatch: {
      type: "integer",
      minimum: 1,
      default: REDIS_STREAM_DEFAULTS.maxBatch,
      description: "Most events written in one round trip (one append script).",
    },
  },
} as const;

export const streamRedisManifest: Manifest = {
  name: "stream-redis",
  version: "0.1.0",
  kind: "service",
  kernel: ">=0.1.0 <1",
  description:
    "Run event streams in Redis Streams, shared by every worker: ordered `<ms>-<seq>` ids, bounded retention, Last-Event-ID replay with an explicit `gap`, and cross-worker control messages.",
  provides: [STREAM_BRIDGE_PORT],
  hooks: {},
  config: streamRedisConfigSchema as unknown as Record<string, unknown>,
};
