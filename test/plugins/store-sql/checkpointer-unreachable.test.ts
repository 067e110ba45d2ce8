/**
 * The checkpointer's PostgreSQL calls while the database is unreachable fail with
 * KEEL_ERR_STORE_UNAVAILABLE, like the run store's: a `/join` that reads the thread's state
 * (its checkpoint) during a PostgreSQL outage answers 503 with that code, not 500. The
 * outage is a `pg` Pool on a loopback port nothing listens on (connection refused), so no
 * database is needed.
 */
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { KeelCheckpointSaver, PostgresExecutor, type PgPool } from "../../../plugins/store-sql/index.js";
import { ALICE, createThread, startHarness, until } from "../gateway/harness.js";

const { Pool } = createRequire(import.meta.url)("pg") as { Pool: new (options: Record<string, unknown>) => PgPool };

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const port = await closedPort();
const pools: PgPool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
});

function unreachableExecutor(): PostgresExecutor {
  const pool = new Pool({ connectionString: `postgres://keel:keel@127.0.0.1:${port}/keel`, max: 1, connectionTimeoutMillis: 2_000 });
  pool.on("error", () => undefined);
  pools.push(pool);
  return new PostgresExecutor(pool);
}

const unavailable = { code: "KEEL_ERR_STORE_UNAVAILABLE", message: expect.stringContaining("ECONNREFUSED") as unknown };

describe("the PostgreSQL checkpointer while the database is unreachable", () => {
  it("reads, writes (alone and fenced in a transaction) and DDL fail with KEEL_ERR_STORE_UNAVAILABLE, naming the driver's error", async () => {
    const executor = unreachableExecutor();
    await expect(executor.all("SELECT 1 AS one", [])).rejects.toMatchObject(unavailable);
    await expect(Promise.resolve(executor.write({ statements: [{ sql: "SELECT 1", params: [] }] }, () => undefined))).rejects.toMatchObject(unavailable);
    await expect(
      Promise.resolve(executor.write({ fence: { runId: "r1", epoch: 1 }, statements: [{ sql: "SELECT 1", params: [] }, { sql: "SELECT 2", params: [] }] }, () => undefined)),
    ).rejects.toMatchObject(unavailable);
    await expect(Promise.resolve(executor.exec("SELECT 1"))).rejects.toMatchObject(unavailable);
  });

  it("the saver's reads fail with it too (what a thread-state read and a join's final values go through)", async () => {
    const saver = new KeelCheckpointSaver(unreachableExecutor());
    await expect(saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "" } })).rejects.toMatchObject(unavailable);
  });

  it("a /join whose final values cannot be read during the outage answers 503 KEEL_ERR_STORE_UNAVAILABLE, not 500", async () => {
    const h = await startHarness();
    try {
      const threadId = await createThread(h.app);
      const created = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: { ...ALICE, "content-type": "application/json" }, payload: { assistant_id: "lead", input: { events: 1 } } });
      expect(created.statusCode).toBe(200);
      const runId = (created.json() as { run_id: string }).run_id;
      await until(async () => (await h.store.getRun(runId))?.status === "success", "the run succeeded");

      // The database goes away: the thread's state lives in its checkpoints there.
      const executor = unreachableExecutor();
      h.executor.getThreadState = async () => {
        await executor.all("SELECT 1 AS one", []);
        return {};
      };
      const joined = await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/join`, headers: ALICE });
      expect([joined.statusCode, (joined.json() as { error: string }).error]).toEqual([503, "KEEL_ERR_STORE_UNAVAILABLE"]);
    } finally {
      await h.close();
    }
  });
});
