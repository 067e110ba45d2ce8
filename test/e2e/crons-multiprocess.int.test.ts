/**
 * Crons on two `keel serve` worker processes sharing one PostgreSQL (a scratch database) and
 * one Redis: both poll for due crons every second, and each tick is claimed by exactly one
 * (the compare-and-set on `next_run_at`). Three crons whose ticks were missed for an hour
 * (their `next_run_at` set back in the database, as if every worker had been down) fire one
 * run each — not two, one per worker, and not sixty, one per missed minute. Skipped with a
 * printed reason when PostgreSQL or Redis is unreachable locally; a failure under CI=true.
 */
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { PG_URL, REDIS_URL, servicesUnavailable } from "./services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

const unavailable = await servicesUnavailable();
if (unavailable !== null) console.warn(`skipping the two-worker cron test: ${unavailable}`);

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rowCount: number | null }>;
  end(): Promise<void>;
}
const { Client: PgClientClass } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };
const MINUTE = 60_000;

describe.skipIf(unavailable !== null)("crons on two keel serve workers (PostgreSQL + Redis)", () => {
  let dir: string;
  let a: ServeProcess;
  let b: ServeProcess;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-crons-mp-");
    database = await scratchDatabase(PG_URL, "keel_e2e_crons");
    const common = ["--port", "0", "--db", database.url, "--redis", REDIS_URL, "--workspaces", join(dir, "workspaces")];
    const env = { KEEL_API_KEYS: "key-cron:cron-user" };
    a = await startServe(common, { cwd: dir, env });
    b = await startServe(common, { cwd: dir, env });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop("SIGTERM"), b?.stop("SIGTERM")]);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("fires each missed tick once across both workers", async () => {
    const viaA = new Client({ apiUrl: a.url, apiKey: "key-cron", callerOptions: { maxRetries: 0 } });
    const viaB = new Client({ apiUrl: b.url, apiKey: "key-cron", callerOptions: { maxRetries: 0 } });
    const threads = [await viaA.threads.create(), await viaB.threads.create()];
    const crons = [
      await viaA.crons.createForThread(threads[0]!.thread_id, "lead", { schedule: "* * * * *", input: "tick a", enabled: false }),
      await viaB.crons.createForThread(threads[1]!.thread_id, "lead", { schedule: "* * * * *", input: "tick b", enabled: false }),
      await viaA.crons.create("lead", { schedule: "* * * * *", input: "tick c", enabled: false, onRunCompleted: "keep" }),
    ];
    expect(await viaB.crons.count()).toBe(3);

    const pg = new PgClientClass({ connectionString: database!.url });
    await pg.connect();
    const firedFrom = Date.now();
    try {
      const updated = await pg.query("update keel_crons set enabled = 1, next_run_at = $1", [new Date(firedFrom - 60 * MINUTE).toISOString()]);
      expect(updated.rowCount).toBe(3);
    } finally {
      await pg.end();
    }

    const runsOfStateless = async () => {
      const made = await viaA.threads.search({ metadata: { cron_id: crons[2]!.cron_id }, limit: 100 });
      return (await Promise.all(made.map((t) => viaA.runs.list(t.thread_id)))).flat();
    };
    const counts = async () => [(await viaA.runs.list(threads[0]!.thread_id)).length, (await viaB.runs.list(threads[1]!.thread_id)).length, (await runsOfStateless()).length];
    const deadline = Date.now() + 20_000;
    while ((await counts()).some((n) => n === 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    // Both workers poll every second: give each of them a few more polls to (wrongly) fire a tick again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [first, second, stateless] = await counts();
    const checkedAt = Date.now();
    const minutesCrossed = Math.floor(checkedAt / MINUTE) - Math.floor(firedFrom / MINUTE);
    for (const n of [first, second, stateless]) {
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(1 + minutesCrossed);
    }
    for (const cron of await viaB.crons.search()) {
      expect(Date.parse(cron.next_run_date!)).toBeGreaterThan(firedFrom);
      await viaB.crons.delete(cron.cron_id);
    }
  }, 40_000);
});
