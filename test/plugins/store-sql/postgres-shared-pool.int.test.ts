/**
 * store-sql on PostgreSQL (KEEL_TEST_PG_URL): the plugin's ports — run store, item store and
 * checkpointer — share one connection pool (README, "One connection pool"). Counted exactly:
 * the sessions on a scratch database (pg_stat_activity, the probe's own left out) once every
 * port had more concurrent calls than a pool has connections, so each pool opened its
 * maximum — MikroORM's (knex's) default of 10, and `pg`'s Pool default of 10 for a
 * checkpointer with a pool of its own. The plugin's ports: 10 sessions (before the
 * checkpointer shared the pool: 20). A checkpointer opened on its own (`createCheckpointer(url)`)
 * adds its 10. Closing every port leaves none.
 * Skipped locally with a printed reason when PostgreSQL cannot be used; a failure under CI=true.
 */
import { createRequire } from "node:module";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import type { ItemStore } from "../../../kernel/ports/item-store.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import { closeCheckpointer, createCheckpointer, storeSqlPlugin } from "../../../plugins/store-sql/index.js";
import { postgresUnavailable, PG_URL } from "../../e2e/services.js";
import { scratchDatabase } from "./scratch-database.js";

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) console.warn(`skipping the store-sql shared-pool test: ${skipReason}`);

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };
const NOW = "2030-01-01T00:00:00.000Z";
/** MikroORM's pool (knex's default maximum) and `pg`'s Pool default maximum. */
const ORM_POOL_MAX = 10;
const PG_POOL_MAX = 10;
/** Concurrent calls per port: more than either pool has connections. */
const CONCURRENT = 30;

/** One checkpoint written and read back: the saver's tables exist and its pool has a connection. */
async function useSaver(saver: BaseCheckpointSaver, threadId: string): Promise<void> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const checkpoint = { ...emptyCheckpoint(), id: "1f000000-0000-6000-8000-000000000001" };
  await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
  expect((await saver.getTuple(config))?.checkpoint.id).toBe(checkpoint.id);
}

describe.skipIf(skipReason !== null)("store-sql on PostgreSQL: one pool for the run store, the item store and the checkpointer", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it("the plugin's checkpointer opens no session of its own (10 in all, not 20); one opened on its own adds its pool; closing every port leaves none", async () => {
    const db = await scratchDatabase(PG_URL, "keel_pool");
    cleanups.push(db.drop);
    const probe = new Client({ connectionString: db.url });
    await probe.connect();
    cleanups.push(() => probe.end());
    const sessions = async () => Number((await probe.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).rows[0]!.n);
    expect(await sessions()).toBe(0);
    // A closed client's backend leaves pg_stat_activity a moment after the client is gone: the count after a close is read once it settled.
    const sessionsAfterClose = async (expected: number) => {
      let n = await sessions();
      for (let i = 0; i < 100 && n !== expected; i++) n = await new Promise((resolve) => setTimeout(resolve, 50)).then(sessions);
      return n;
    };

    const config = { url: db.url };
    const services = storeSqlPlugin.services!;
    const store = services.store!(config) as RunStore;
    const items = services["item-store"]!(config) as ItemStore;
    const saver = services.checkpointer!(config) as BaseCheckpointSaver & { close(): Promise<void> };
    cleanups.push(() => saver.close(), () => items.close!(), () => store.close!());

    await store.init!();
    await store.createThread({ threadId: "t-pool", owner: "alice", status: "idle", metadata: {}, createdAt: NOW, updatedAt: NOW });
    await items.putItem("alice", ["notes"], "k", { v: 1 }, { now: NOW });
    await useSaver(saver, "t-pool");

    // More concurrent calls of each port than a pool has connections: every pool opens its maximum.
    const wave = (n: number, call: () => Promise<unknown>) => Promise.all(Array.from({ length: n }, call));
    const config0 = { configurable: { thread_id: "t-pool", checkpoint_ns: "" } };
    await Promise.all([
      wave(CONCURRENT, () => saver.getTuple(config0)),
      wave(CONCURRENT, () => store.getThread("t-pool")),
      wave(CONCURRENT, () => items.getItem("alice", ["notes"], "k", { refreshTtl: false, now: NOW })),
    ]);
    // The run store, the item store and the checkpointer: one pool (before: the checkpointer's own beside it, 20).
    expect(await sessions()).toBe(ORM_POOL_MAX);

    // A checkpointer opened on its own (outside the plugin's ports) has a pool of its own.
    const standalone = await createCheckpointer(db.url);
    await wave(CONCURRENT, () => standalone.getTuple(config0));
    expect(await sessions()).toBe(ORM_POOL_MAX + PG_POOL_MAX);
    await closeCheckpointer(standalone);
    expect(await sessionsAfterClose(ORM_POOL_MAX)).toBe(ORM_POOL_MAX);

    // The pool closes with its last holder, whichever order they close in.
    await saver.close();
    await store.close!();
    expect(await sessions()).toBe(ORM_POOL_MAX);
    await items.close!();
    expect(await sessionsAfterClose(0)).toBe(0);
  }, 30_000);
});
