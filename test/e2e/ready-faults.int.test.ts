import { mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCuttableProxy, type CuttableProxy } from "./cuttable-proxy.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { PG_URL, REDIS_URL, servicesUnavailable } from "./services.js";
import { dropDatabase } from "../plugins/store-sql/scratch-database.js";

const unavailable = await servicesUnavailable();

/**
 * Database and Redis faults never kill a worker: one `keel serve` on PostgreSQL and Redis,
 * each reached through a TCP proxy the test cuts (every session dies, reconnects fail) and
 * restores. While cut: `GET /ok` stays 200, `GET /ready` answers 503 naming the dependency;
 * restored: 200 again, same process. A run whose writes failed during the cut ends, once
 * the database is back, as a failure — never as a success that was not stored.
 */
describe.skipIf(unavailable !== null)("a worker whose database or Redis goes away", () => {
  const user = `ready-${process.pid}-${Date.now()}`;
  const KEY = { "x-api-key": "key-ready", "content-type": "application/json" };
  let dir: string;
  let pg: CuttableProxy;
  let redis: CuttableProxy;
  let server: ServeProcess;

  // A scratch database of its own (the role needs CREATEDB, as for the store-sql tests): other
  // suites sharing the server create and drop schemas, which races a worker's start-up migration.
  const scratch = `keel_ready_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const scratchUrl = (() => {
    const url = new URL(PG_URL);
    url.pathname = `/${scratch}`;
    return url.toString();
  })();
  const admin = async (work: (client: { query(sql: string): Promise<unknown> }) => Promise<unknown>) => {
    const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> } };
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  };

  // Client sessions of the worker's role only: an autovacuum worker on the scratch database is a
  // superuser process, and signalling it fails with "must be a superuser to terminate superuser process".
  const terminateSessions = async (): Promise<number> => {
    const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => { connect(): Promise<void>; query(sql: string, params: unknown[]): Promise<{ rows: { n: number }[] }>; end(): Promise<void> } };
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND usename = current_user AND pid <> pg_backend_pid()`, [scratch]);
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    dir = tempDir("keel-e2e-ready-");
    await admin((client) => client.query(`create database ${scratch}`));
    const pgUrl = new URL(PG_URL);
    const redisUrl = new URL(REDIS_URL);
    pg = await startCuttableProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    redis = await startCuttableProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    server = await startServe(
      ["--port", "0", "--db", pg.urlFor(scratchUrl), "--redis", redis.urlFor(REDIS_URL), "--workspaces", join(dir, "workspaces"), "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`],
      { cwd: dir, env: { KEEL_API_KEYS: `key-ready:${user}`, KEEL_LEASE_TTL_MS: "1500", KEEL_HEARTBEAT_MS: "300", KEEL_REAPER_MS: "300" } },
    );
  }, 60_000);

  afterAll(async () => {
    pg?.restore();
    redis?.restore();
    await server?.stop("SIGTERM");
    await pg?.close();
    await redis?.close();
    await admin((client) => dropDatabase(client, scratch));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: KEY });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const value = await check().catch(() => undefined);
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lines = server.output().stderr.split("\n").filter((line) => !line.includes("reaper's sweep failed"));
    throw new Error(`timed out waiting for ${what}\nstderr: ${lines.join("\n").slice(-3000)}`);
  }
  const alive = () => server.child.exitCode === null && server.child.signalCode === null;

  it("answers /ready 503 `store` while PostgreSQL is cut and 200 after; a run whose writes failed ends as a failure, never a success", async () => {
    expect(await get("/ready")).toEqual({ status: 200, body: { ok: true, checks: { worker: "ok", store: "ok", stream: "ok" } } });
    const threadId = ((await (await fetch(`${server.url}/threads`, { method: "POST", headers: KEY, body: "{}" })).json()) as { thread_id: string }).thread_id;
    // The run's first bash call waits while `hold` exists: the cut happens mid-run.
    mkdirSync(join(dir, "workspaces", threadId), { recursive: true });
    writeFileSync(join(dir, "workspaces", threadId, "hold"), "");
    const created = await fetch(`${server.url}/threads/${threadId}/runs`, { method: "POST", headers: KEY, body: JSON.stringify({ assistant_id: "lead", input: "Write a note." }) });
    expect(created.status).toBe(200);
    const runId = ((await created.json()) as { run_id: string }).run_id;
    await until(async () => (await get(`/threads/${threadId}/runs/${runId}`)).body.status === "running", "the run to start");

    pg.cut();
    try {
      const down = await get("/ready");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ error: "KEEL_ERR_HTTP_NOT_READY", checks: { worker: "ok", store: "unreachable", stream: "ok" } });
      expect(down.body.message).toContain("store");
      expect(await get("/ok")).toEqual({ status: 200, body: { ok: true } });
      // A request that needs the store: 503 with a code (retry), not an anonymous 500.
      const read = await get(`/threads/${threadId}`);
      expect(read.status).toBe(503);
      expect(read.body).toMatchObject({ error: "KEEL_ERR_STORE_UNAVAILABLE" });
      // The run goes on while the database is away: its checkpoint, heartbeat and terminal writes fail.
      unlinkSync(join(dir, "workspaces", threadId, "hold"));
      // However its writes fail (checkpoint, heartbeat, finalization), the run is left to the reaper, unfinished.
      const leftToReaper = new RegExp(`keel: run ${runId}: .*the reaper`);
      await until(async () => leftToReaper.test(server.output().stderr), "the run to fail its writes");
      expect(alive()).toBe(true);
      expect((await get("/ready")).status).toBe(503);
    } finally {
      pg.restore();
    }
    expect(await until(async () => (await get("/ready")).status === 200 && "ready", "/ready to answer 200 again")).toBe("ready");
    const ended = await until(async () => {
      const run = await get(`/threads/${threadId}/runs/${runId}`);
      return run.body.status !== "running" && run.body;
    }, "the run to end once the database is back");
    expect(ended.status).toBe("error");
    expect(ended.outcome).toMatchObject({ status: "failed", primaryStopReason: "lease_expired" });
    const joined = await get(`/threads/${threadId}/runs/${runId}/join`);
    expect(joined.status).toBe(200);
    expect(joined.body.__error__).toMatchObject({ error: "lease_expired" });
    expect(joined.body.outcome).toMatchObject({ status: "failed" });
    expect(alive()).toBe(true);
  });

  it("survives its PostgreSQL sessions being terminated again and again mid-run (pg_terminate_backend); the run ends and its record says how", async () => {
    const threadId = ((await (await fetch(`${server.url}/threads`, { method: "POST", headers: KEY, body: "{}" })).json()) as { thread_id: string }).thread_id;
    mkdirSync(join(dir, "workspaces", threadId), { recursive: true });
    writeFileSync(join(dir, "workspaces", threadId, "hold"), "");
    const created = await fetch(`${server.url}/threads/${threadId}/runs`, { method: "POST", headers: KEY, body: JSON.stringify({ assistant_id: "lead", input: "Write a note." }) });
    const runId = ((await created.json()) as { run_id: string }).run_id;
    await until(async () => (await get(`/threads/${threadId}/runs/${runId}`)).body.status === "running", "the run to start");
    unlinkSync(join(dir, "workspaces", threadId, "hold"));
    // Every session of the worker's database, 40 times, 25 ms apart, while the run takes its steps.
    let terminated = 0;
    for (let i = 0; i < 40; i++) {
      terminated += await terminateSessions();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(terminated).toBeGreaterThan(0);
    expect(alive()).toBe(true);
    const ended = await until(async () => {
      const run = await get(`/threads/${threadId}/runs/${runId}`);
      return run.body.status !== "running" && run.body.status !== "pending" && run.body;
    }, "the run to end");
    // Success only with its outcome stored; otherwise an honest failure.
    if (ended.status === "success") expect(ended.outcome).toMatchObject({ status: "succeeded" });
    else expect(ended.outcome).toMatchObject({ status: "failed" });
    expect((await get("/ready")).status).toBe(200);
    expect(alive()).toBe(true);
  });

  it("answers /ready 503 `stream` while Redis is cut and 200 after, in the same process", async () => {
    redis.cut();
    try {
      const down = await until(async () => {
        const ready = await get("/ready");
        return ready.status === 503 && ready;
      }, "/ready to see Redis gone");
      expect(down.body).toMatchObject({ error: "KEEL_ERR_HTTP_NOT_READY", checks: { store: "ok", stream: "unreachable" } });
      expect(await get("/ok")).toEqual({ status: 200, body: { ok: true } });
    } finally {
      redis.restore();
    }
    await until(async () => (await get("/ready")).status === 200, "/ready to answer 200 again");
    expect(alive()).toBe(true);
  });
});
