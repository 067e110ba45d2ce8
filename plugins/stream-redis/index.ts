import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { StreamBridge } from "../../kernel/runs/types.js";
import { STREAM_BRIDGE_PORT, streamRedisManifest } from "./manifest.js";
import { createRedisStreamBridge, REDIS_STREAM_DEFAULTS } from "./redis-bridge.js";

/**
 * The `stream-redis` service: provides the `stream-bridge` port on Redis Streams, so
 * several gateway workers share every run's stream and control messages.
 *
 * @example
 * { "plugins": ["stream-redis"], "config": { "stream-redis": { "url": "redis://10.0.0.5:6379" } } }
 */
export const streamRedisPlugin = definePlugin({
  manifest: streamRedisManifest,
  services: {
    [STREAM_BRIDGE_PORT]: (config): StreamBridge =>
      createRedisStreamBridge(typeof config.url === "string" ? config.url : "redis://127.0.0.1:6379", {
        maxLen: typeof config.maxLen === "number" ? config.maxLen : REDIS_STREAM_DEFAULTS.maxLen,
        ttlSeconds: typeof config.ttlSeconds === "number" ? config.ttlSeconds : REDIS_STREAM_DEFAULTS.ttlSeconds,
        flushMs: typeof config.flushMs === "number" ? config.flushMs : REDIS_STREAM_DEFAULTS.flushMs,
        maxBatch: typeof config.maxBatch === "number" ? config.maxBatch : REDIS_STREAM_DEFAULTS.maxBatch,
      }),
  },
});

export default streamRedisPlugin;

export { STREAM_BRIDGE_PORT, streamRedisConfigSchema, streamRedisManifest } from "./manifest.js";
export { createRedisStreamBridge, REDIS_STREAM_DEFAULTS, RedisStreamBridge, type RedisStreamBridgeOptions } from "./redis-bridge.js";
export { controlChannel, eventsKey } from "./keys.js";
