/**
 * store-sql under PostgreSQL faults (KEEL_TEST_PG_URL): a backend terminated with
 * `pg_terminate_backend` while the checkpointer's executor holds a pooled client in a
 * transaction must fail that write, never the process (an `error` event on a checked-out
 * `pg` client with no listener is an uncaught exception), and the next call reconnects.
 * Skipped locally with a printed reason when PostgreSQL cannot be used; a failure under CI=true.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresExecutor, type PgPool } from "../../../plugins/store-sql/index.js";
import { postgresUnavailable, PG_URL } from "../../e2e/services.js";

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) console.warn(`skipping store-sql PostgreSQL fault tests: ${skipReason}`);

const { Pool } = createRequire(import.meta.url)("pg") as { Pool: new (options: Record<string, unknown>) => PgPool };

describe.skipIf(skipReason !== null)("store-sql on PostgreSQL: a terminated backend", () => {
  const pools: PgPool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.end().catch(() => undefined);
  });
  const pool = (applicationName: string): PgPool => {
    const created = new Pool({ connectionString: PG_URL, application_name: applicationName, max: 2 });
    created.on("error", () => undefined);
    pools.push(created);
    return created;
  };

  async function terminateWhenBusy(admin: PgPool, applicationName: string): Promise<number> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await admin.query(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
        [applicationName],
      );
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) return n;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the executor's transaction never became active");
  }

  it("fails the write whose session was terminated mid-transaction, keeps the process up, and reconnects", async () => {
    const name = `keel-fault-${randomUUID().slice(0, 8)}`;
    const uncaught: Error[] = [];
    const onUncaught = (error: Error) => uncaught.push(error);
    process.prependListener("uncaughtException", onUncaught);
    try {
      const executor = new PostgresExecutor(pool(name));
      // The guard sleeps inside the transaction, so the backend is busy in it when terminated.
      const write = Promise.resolve(
        executor.write({ guard: { sql: "SELECT 1 AS found FROM (SELECT pg_sleep(20)) AS s", params: [] }, statements: [{ sql: "SELECT 1", params: [] }] }, () => undefined),
      );
      const outcome = write.then(
        () => "written",
        (error: Error) => error.message,
      );
      expect(await terminateWhenBusy(pool(`${name}-admin`), name)).toBe(1);
      expect(await outcome).toMatch(/terminat/i);
      // Let the connection's `end` (and the client's `error` event) arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
      expect(await executor.all("SELECT 41 + 1 AS answer", [])).toEqual([{ answer: 42 }]);
      // A write after the fault goes through on a fresh connection.
      await executor.write({ guard: { sql: "SELECT 1 AS found", params: [] }, statements: [{ sql: "SELECT 1", params: [] }] }, () => undefined);
    } finally {
      process.removeListener("uncaughtException", onUncaught);
    }
  });
});
