/**
 * store-sql against PostgreSQL (KEEL_TEST_PG_URL, default postgres://keel:keel@127.0.0.1:5432/keel).
 * Locally the tests are skipped with a printed reason when nothing listens there; with
 * CI=true an unreachable server is a failure. The role needs CREATEDB: the concurrent
 * start test migrates a scratch database of its own.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import storeSqlPlugin, { closeCheckpointer, createCheckpointer, createSqlRunStore } from "../../../plugins/store-sql/index.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunStore } from "../../../kernel/runs/types.js";
import { describeRunStoreConformance } from "../../runs/store-conformance.js";
import { countingGraph } from "./counting-graph.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";

function tcpReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const reachable = await tcpReachable(PG_URL);
const skipReason = `PostgreSQL not reachable at KEEL_TEST_PG_URL (${PG_URL.replace(/:[^:@/]+@/, ":***@")})`;

if (!reachable && process.env.CI === "true") {
  describe("store-sql on PostgreSQL", () => {
    it("needs a reachable PostgreSQL in CI", () => {
      throw new Error(`${skipReason}; CI must start it (see .ci/run)`);
    });
  });
} else if (!reachable) {
  console.warn(`skipping store-sql PostgreSQL tests: ${skipReason}`);
  describe.skip(`store-sql on PostgreSQL (${skipReason})`, () => {
    it("skipped", () => undefined);
  });
} else {
  describeRunStoreConformance("PostgreSQL", () => createSqlRunStore(PG_URL), {
    makePeers: async () => [await createSqlRunStore(PG_URL)],
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
    afterAll(() => withAdmin((c) => c.query(`drop database if exists ${scratch} with (force)`)));

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

    it("serves the store port from the plugin, waiting for the database", async () => {
      const store = storeSqlPlugin.services!.store!({ url: PG_URL }) as RunStore;
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
      const first = await createCheckpointer(PG_URL);
      try {
        expect(await countingGraph(first).invoke({ count: 1 }, config)).toEqual({ count: 2 });
        expect(await countingGraph(first).invoke({ count: 10 }, config)).toEqual({ count: 13 });
      } finally {
        await closeCheckpointer(first);
      }
      // The port's saver defers its calls until setup finished.
      const second = storeSqlPlugin.services!.checkpointer!({ url: PG_URL }) as BaseCheckpointSaver;
      try {
        expect((await countingGraph(second).getState(config)).values).toEqual({ count: 13 });
      } finally {
        await closeCheckpointer(second);
      }
    });
  });
}
