/**
 * Why the Redis at `url` cannot be used by a test, or null when it answers PING.
 * Callers skip with the reason printed locally; under CI=true they must not skip.
 */
import { Redis } from "ioredis";

export const TEST_REDIS_URL = process.env.KEEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export async function redisUnreachable(url = TEST_REDIS_URL): Promise<string | null> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return `Redis not reachable at KEEL_TEST_REDIS_URL=${url} (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}
