/**
 * One `keel serve` worker's connections to its `--db` database (plugins/store-sql/README.md,
 * "One connection pool"): the run store, crons, items and (on PostgreSQL) assistants share
 * one pool, instead of each opening its own. PostgreSQL: the worker's sessions on a scratch
 * database (pg_stat_activity) after traffic that used every store; SQLite: the worker's open
 * file descriptors on the database file. PostgreSQL is skipped with a printed reason when it
 * cannot be reached locally (a failure under CI=true).
 */
import { readdirSync, readlinkSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { postgresUnavailable } from "./services.js";
import { startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
/** The run store's pool (MikroORM's default maximum, 10), which the checkpointer shares on PostgreSQL: what the worker may hold at most now (before: 10 + the checkpointer's 10). */
const ONE_POOL_BOUND = 10;

/** Traffic that reaches every store: a run (run store, checkpointer), an assistant, a cron, an item. */
async function useEveryStore(server: ServeProcess): Promise<void> {
  const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "hi" }] } });
  const assistant = await client.assistants.create({ graphId: "lead", name: "pooled" });
  await client.assistants.search({ limit: 5 });
  await client.crons.create(assistant.assistant_id, { schedule: "0 9 * * *" });
  await client.crons.search({ limit: 5 });
  await client.store.putItem(["notes"], "k", { v: 1 });
  await client.store.getItem(["notes"], "k");
  // Concurrent reads of each store make each pool open more than one connection if it has its own.
  await Promise.all(Array.from({ length: 12 }, () => Promise.all([client.assistants.search({ limit: 5 }), client.crons.search({ limit: 5 }), client.store.searchItems(["notes"]), client.threads.search({ limit: 5 })])));
}

const pgSkip = await postgresUnavailable(PG_URL);

describe("one keel serve worker's connections to --db", () => {
  it("SQLite: the run store, crons and items hold one connection to the file (assistants one more; the checkpointer its own)", async () => {
    const dir = tempDir("keel-e2e-connections-");
    const db = join(dir, "keel.db");
    const server = await startServe(["--port", "0", "--db", `sqlite:${db}`], { cwd: dir, env: { KEEL_API_KEYS: "" } });
    try {
      await useEveryStore(server);
      const fdDir = `/proc/${server.child.pid}/fd`;
      const handles = readdirSync(fdDir).filter((fd) => {
        try {
          return readlinkSync(join(fdDir, fd)) === db;
        } catch {
          return false;
        }
      });
      // Before: run store, crons, items and assistants each had one, and the checkpointer one (5).
      expect(handles.length).toBeLessThanOrEqual(3);
      expect(handles.length).toBeGreaterThanOrEqual(1);
    } finally {
      await server.stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it.skipIf(pgSkip !== null)(`PostgreSQL: the companion stores and the checkpointer open no pool of their own${pgSkip ? ` (skipped: ${pgSkip})` : ""}`, async () => {
    const scratch = await scratchDatabase(PG_URL, "keel_conn");
    const dir = tempDir("keel-e2e-connections-pg-");
    const server = await startServe(["--port", "0", "--db", scratch.url], { cwd: dir, env: { KEEL_API_KEYS: "" } });
    const { Client: PgClient } = createRequire(import.meta.url)("pg") as { Client: new (o: { connectionString: string }) => { connect(): Promise<void>; query(sql: string, params: unknown[]): Promise<{ rows: Array<{ n: number }> }>; end(): Promise<void> } };
    const probe = new PgClient({ connectionString: scratch.url });
    try {
      await useEveryStore(server);
      await probe.connect();
      const { rows } = await probe.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()", []);
      const sessions = rows[0]!.n;
      console.log(`keel serve worker: ${sessions} PostgreSQL sessions on its --db`);
      expect(sessions).toBeGreaterThanOrEqual(1);
      expect(sessions).toBeLessThanOrEqual(ONE_POOL_BOUND);
    } finally {
      await probe.end().catch(() => undefined);
      await server.stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
      await scratch.drop();
    }
  }, 30_000);
});
