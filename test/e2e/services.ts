import { connect } from "node:net";
import { Redis } from "ioredis";

export const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
export const REDIS_URL = process.env.KEEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

function tcpReachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || "127.0.0.1", port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Why the PostgreSQL + Redis tests cannot run here, or null when they can. In CI
 * (CI=true) a missing service is a failure, not a skip: `.ci/run` starts both.
 */
export async function servicesUnavailable(): Promise<string | null> {
  const problems: string[] = [];
  if (!(await tcpReachable(PG_URL, 5432))) problems.push(`PostgreSQL not reachable at KEEL_TEST_PG_URL (${PG_URL.replace(/:[^:@/]*@/, ":***@")})`);
  if (!(await redisAnswers(REDIS_URL))) problems.push(`Redis not reachable at KEEL_TEST_REDIS_URL (${REDIS_URL})`);
  if (problems.length === 0) return null;
  const reason = problems.join("; ");
  if (process.env.CI === "true") throw new Error(`${reason} — CI=true, so this is a failure (.ci/run starts both services)`);
  console.warn(`skipping the multi-process tests: ${reason}`);
  return reason;
}
