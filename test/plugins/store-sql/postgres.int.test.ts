/**
 * store-sql against PostgreSQL (KEEL_TEST_PG_URL, default postgres://keel:keel@127.0.0.1:5432/keel).
 * Locally the tests are skipped with a printed reason when they cannot log in there
 * (test/e2e/services.ts); with CI=true that is a failure. The role needs CREATEDB: the concurrent
 * start test migrates a scratch database of its own.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import storeSqlPlugin, { closeCheckpointer, createCheckpointer, createSqlRunStore } from "../../../plugins/store-sql/index.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunStore } from "../../../kernel/runs/types.js";
import { describeRunStoreConformance } from "../../runs/store-conformance.js";
import { describeClaimQueueManagers } from "../../runs/claim-queue-managers.js";
import { countingGraph } from "./counting-graph.js";
import { postgresUnavailable } from "../../e2e/services.js";
import { dropDatabase, scratchDatabase } from "./scratch-database.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";

const skipReason = await postgresUnavailable(PG_URL);

if (skipReason !== null) {
  console.warn(`skipping store-sql PostgreSQL tests: ${skipReason}`);
  describe.skip(`store-sql on PostgreSQL (${skipReason})`, () => {
    it("skipped", () => undefined);
  });
} else {
  // A database of this file's own: workers on a database claim every pending run in it, so
  // the runs these tests leave pending must not sit in a database that servers use.
  const { url: DB_URL, drop: dropDatabase } = await scratchDatabase(PG_URL, "keel_store_sql");
  afterAll(() => dropDatabase());

  describeRunStoreConformance("PostgreSQL", () => createSqlRunStore(DB_URL), {
    makePeers: async () => [await createSqlRunStore(DB_URL)],
    // A scratch database per call, with two stores (two pools) on it.
    makeEmptyStores: async () => {
      const { url, drop } = await scratchDatabase(PG_URL, "keel_queue");
      const stores = [await createSqlRunStore(url), await createSqlRunStore(url)];
      return {
        stores,
        dispose: async () => {
          await Promise.all(stores.map((s) => s.close()));
          await drop();
        },
      };
    },
  });

  // Two stores (two pools) on a scratch database, as two worker processes would have.
  describeClaimQueueManagers("PostgreSQL", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_queue");
    const stores: [RunStore, RunStore] = [await createSqlRunStore(url), await createSqlRunStore(url)];
    return {
      stores,
      dispose: async () => {
        await Promise.all(stores.map((s) => s.close()));
        await drop();
      },
    };
  });

  describe("store-sql on PostgreSQL", () => {
    interface PgClient {
      connect(): Promise<void>;
      query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
      end(): Promise<void>;
    }
    const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

    async function withAdmin<T>(work: (client: PgClient) => Promise<T>): Promise<T> {
      const client = new Client({ connectionString: PG_URL });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    }

    const scratch = `keel_store_test_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const scratchUrl = (() => {
      const url = new URL(PG_URL);
      url.pathname = `/${scratch}`;
      return url.toString();
    })();
    afterAll(() => withAdmin((c) => dropDatabase(c, scratch)));

    it("migrates a fresh database once when several workers start together", async () => {
      await withAdmin((c) => c.query(`create database ${scratch}`));
      const stores = await Promise.all(Array.from({ length: 4 }, () => createSqlRunStore(scratchUrl)));
      try {
        const thread = { threadId: "t", owner: "u", status: "idle" as const, metadata: {}, createdAt: "2030-01-01T00:00:00.000Z", updatedAt: "2030-01-01T00:00:00.000Z" };
        await stores[0]!.createThread(thread);
        expect(await stores[3]!.getThread("t")).toEqual(thread);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
      const indexes = new Client({ connectionString: scratchUrl });
      await indexes.connect();
      try {
        const { rows } = await indexes.query("select indexdef from pg_indexes where indexname = 'keel_runs_one_running_per_thread'");
        expect(rows.map((r) => r.indexdef)).toEqual([
          "CREATE UNIQUE INDEX keel_runs_one_running_per_thread ON public.keel_runs USING btree (thread_id) WHERE (status = 'running'::text)",
        ]);
      } finally {
        await indexes.end();
      }
    });

    /** Rejects when `promise` has not settled within `ms`: a bound for a deadlock, not a speed check. */
    const within = <T>(promise: Promise<T>, ms: number, what: string) =>
      Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms).unref())]);
    const at = "2030-01-01T00:00:00.000Z";
    const pgThread = (threadId: string, owner = "u") => ({ threadId, owner, status: "idle" as const, metadata: {}, createdAt: at, updatedAt: at });
    const pgRun = (threadId: string, user: string) => ({
      runId: randomUUID(), threadId, assistantId: "lead", status: "pending" as const, multitaskStrategy: "enqueue" as const, epoch: 0, createdAt: at, updatedAt: at, user, request: { assistantId: "lead", input: null },
    });

    it("admits on other threads while one thread's admission lock is held: no lock shared by all admissions", async () => {
      const store = await createSqlRunStore(DB_URL);
      const holder = new Client({ connectionString: DB_URL });
      await holder.connect();
      try {
        const [a, b] = [randomUUID(), randomUUID()];
        await store.createThread(pgThread(a));
        await store.createThread(pgThread(b));
        await holder.query("begin");
        await holder.query(`select thread_id from keel_threads where thread_id = '${a}' for update`);
        let aDone = false;
        const admitA = store.admitRun(pgRun(a, "u")).then((result) => ((aDone = true), result));
        expect((await within(store.admitRun(pgRun(b, "u")), 10_000, "an admission on another thread")).ok).toBe(true);
        expect(aDone).toBe(false);
        await holder.query("commit");
        expect((await admitA).ok).toBe(true);
      } finally {
        await holder.end();
        await store.close();
      }
    });

    it("under a per-user limit, serializes admissions of one user only", async () => {
      const store = await createSqlRunStore(DB_URL);
      const holder = new Client({ connectionString: DB_URL });
      await holder.connect();
      try {
        const [x, y] = [`x-${randomUUID()}`, `y-${randomUUID()}`];
        const [tx, ty] = [randomUUID(), randomUUID()];
        await store.createThread(pgThread(tx, x));
        await store.createThread(pgThread(ty, y));
        await holder.query(`select pg_advisory_lock(hashtext('keel-user:${x}'))`);
        let xDone = false;
        const admitX = store.admitRun(pgRun(tx, x), { maxActivePerUser: 5 }).then((result) => ((xDone = true), result));
        expect((await within(store.admitRun(pgRun(ty, y), { maxActivePerUser: 5 }), 10_000, "another user's admission")).ok).toBe(true);
        expect(xDone).toBe(false);
        await holder.query(`select pg_advisory_unlock(hashtext('keel-user:${x}'))`);
        expect((await admitX).ok).toBe(true);
      } finally {
        await holder.end();
        await store.close();
      }
    });

    it("serves the store port from the plugin, waiting for the database", async () => {
      const store = storeSqlPlugin.services!.store!({ url: DB_URL }) as RunStore;
      try {
        const threadId = randomUUID();
        await store.createThread({ threadId, owner: "u", status: "idle", metadata: {}, createdAt: "2030-01-01T00:00:00.000Z", updatedAt: "2030-01-01T00:00:00.000Z" });
        expect((await store.getThread(threadId))?.threadId).toBe(threadId);
      } finally {
        await store.close();
      }
    });

    it("checkpoints a LangGraph graph with the Keel checkpointer on PostgreSQL, readable from a new saver", async () => {
      const config = { configurable: { thread_id: randomUUID() } };
      const first = await createCheckpointer(DB_URL);
      try {
        expect(await countingGraph(first).invoke({ count: 1 }, config)).toEqual({ count: 2 });
        expect(await countingGraph(first).invoke({ count: 10 }, config)).toEqual({ count: 13 });
      } finally {
        await closeCheckpointer(first);
      }
      // The port's saver defers its calls until setup finished.
      const second = storeSqlPlugin.services!.checkpointer!({ url: DB_URL }) as BaseCheckpointSaver;
      try {
        expect((await countingGraph(second).getState(config)).values).toEqual({ count: 13 });
      } finally {
        await closeCheckpointer(second);
      }
    });
  });
}
