import { createRequire } from "node:module";
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

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: "error", listener: () => void): void;
}

/** A URL for messages: the password replaced. */
export const redacted = (url: string): string => url.replace(/:[^:@/]*@/, ":***@");

/**
 * Why PostgreSQL at `url` cannot be used by the tests, or null when it can: not only an
 * open port but a login and a query (a wrong password or a missing role or database is
 * a reason too). Under CI=true a reason is a failure: this throws instead.
 */
export async function postgresUnavailable(url: string = PG_URL, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const reason = await postgresProblem(url);
  if (reason === null) return null;
  if (env.CI === "true") throw new Error(`${reason} — CI=true, so this is a failure (.ci/run starts PostgreSQL)`);
  return reason;
}

async function postgresProblem(url: string): Promise<string | null> {
  if (!(await tcpReachable(url, 5432))) return `PostgreSQL not reachable at KEEL_TEST_PG_URL (${redacted(url)})`;
  const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string; connectionTimeoutMillis: number }) => PgClient };
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return `PostgreSQL at KEEL_TEST_PG_URL (${redacted(url)}) answers but cannot be logged into: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
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
  const postgres = await postgresProblem(PG_URL);
  if (postgres !== null) problems.push(postgres);
  if (!(await redisAnswers(REDIS_URL))) problems.push(`Redis not reachable at KEEL_TEST_REDIS_URL (${REDIS_URL})`);
  if (problems.length === 0) return null;
  const reason = problems.join("; ");
  if (process.env.CI === "true") throw new Error(`${reason} — CI=true, so this is a failure (.ci/run starts both services)`);
  console.warn(`skipping the multi-process tests: ${reason}`);
  return reason;
}
