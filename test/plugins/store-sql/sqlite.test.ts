import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import storeSqlPlugin, { stockCheckpointsPathFor, closeCheckpointer, createCheckpointer, createSqlRunStore, parseStoreUrl, SqlRunStore, sqliteDatabaseOf } from "../../../plugins/store-sql/index.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import { describeRunStoreConformance } from "../../runs/store-conformance.js";
import { describeClaimQueueManagers } from "../../runs/claim-queue-managers.js";
import { countingGraph } from "./counting-graph.js";

const dir = mkdtempSync(join(tmpdir(), "keel-store-sql-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** better-sqlite3 (a dev-only second handle on the file) to look at what the store wrote. */
const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => {
  pragma(sql: string, options?: { simple: boolean }): unknown;
  prepare(sql: string): { run(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
  close(): void;
};

const conformanceUrl = `sqlite:${join(dir, "conformance", "keel.db")}`;
let emptyFiles = 0;
describeRunStoreConformance("SQLite file", () => createSqlRunStore(conformanceUrl), {
  // A second store on the same file: its own connection, like another worker.
  makePeers: async () => [await createSqlRunStore(conformanceUrl)],
  makeEmptyStores: async () => {
    const url = `sqlite:${join(dir, `empty-${++emptyFiles}`, "keel.db")}`;
    const stores = [await createSqlRunStore(url), await createSqlRunStore(url)];
    return { stores, dispose: async () => void (await Promise.all(stores.map((s) => s.close()))) };
  },
});

// Two stores on one new file: two connections, as two worker processes would have.
describeClaimQueueManagers("SQLite file", async () => {
  const url = `sqlite:${join(dir, `managers-${++emptyFiles}`, "keel.db")}`;
  const stores: [RunStore, RunStore] = [await createSqlRunStore(url), await createSqlRunStore(url)];
  return { stores, dispose: async () => void (await Promise.all(stores.map((s) => s.close()))) };
});

describeRunStoreConformance("SQLite in memory", () => createSqlRunStore("sqlite::memory:"), {
  makeEmptyStores: async () => {
    const store = await createSqlRunStore("sqlite::memory:");
    return { stores: [store], dispose: () => store.close() };
  },
});

const thread = (threadId: string) => ({ threadId, owner: "u", status: "idle" as const, metadata: {}, createdAt: "2030-01-01T00:00:00.000Z", updatedAt: "2030-01-01T00:00:00.000Z" });
const run = (runId: string, threadId: string) => ({
  runId, threadId, assistantId: "lead", status: "pending" as const, multitaskStrategy: "enqueue" as const, epoch: 0,
  createdAt: "2030-01-01T00:00:00.000Z", updatedAt: "2030-01-01T00:00:00.000Z", user: "u", request: { assistantId: "lead", input: "hi" },
});

describe("store-sql on SQLite", () => {
  it("creates the directory, uses WAL, and keeps one running run per thread even against raw writes", async () => {
    const path = join(dir, "fresh", "nested", "keel.db");
    const store = await createSqlRunStore(`sqlite:${path}`);
    await store.createThread(thread("t"));
    await store.admitRun(run("r1", "t"));
    await store.admitRun(run("r2", "t"));
    await store.close();
    expect(existsSync(path)).toBe(true);

    const db = new Database(path);
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      db.prepare("update keel_runs set status = 'running' where run_id = ?").run("r1");
      expect(() => db.prepare("update keel_runs set status = 'running' where run_id = ?").run("r2")).toThrow(/UNIQUE/);
    } finally {
      db.close();
    }
  });

  it("migrates an older schema on start and keeps the data", async () => {
    const url = `sqlite:${join(dir, "migrate", "keel.db")}`;
    const first = await createSqlRunStore(url);
    await first.createThread(thread("kept"));
    await first.close();

    // An older release had no reports table.
    const db = new Database(join(dir, "migrate", "keel.db"));
    db.prepare("drop table keel_reports").run();
    db.close();

    const second = await createSqlRunStore(url);
    try {
      expect((await second.getThread("kept"))?.threadId).toBe("kept");
      await second.saveReport("r", { ok: 1 });
      expect(await second.getReport("r")).toEqual({ ok: 1 });
    } finally {
      await second.close();
    }
  });

  it("reads store URLs, and migrates the stock checkpoint file of earlier releases only into keel.db", () => {
    expect(parseStoreUrl("sqlite:./.keel/keel.db")).toEqual({ dialect: "sqlite", path: "./.keel/keel.db" });
    expect(parseStoreUrl("sqlite:///var/keel/keel.db")).toEqual({ dialect: "sqlite", path: "/var/keel/keel.db" });
    expect(parseStoreUrl("sqlite::memory:")).toEqual({ dialect: "sqlite", path: ":memory:" });
    expect(parseStoreUrl("postgresql://u:p@db:5432/keel")).toEqual({ dialect: "postgres", url: "postgresql://u:p@db:5432/keel" });
    const fresh = join(dir, "paths");
    mkdirSync(fresh, { recursive: true });
    expect(stockCheckpointsPathFor(join(fresh, "keel.db"))).toBeUndefined();
    writeFileSync(join(fresh, "checkpoints.db"), "");
    expect(stockCheckpointsPathFor(join(fresh, "keel.db"))).toBe(join(fresh, "checkpoints.db"));
    expect(stockCheckpointsPathFor(join(fresh, "a.db"))).toBeUndefined();
    expect(stockCheckpointsPathFor(":memory:")).toBeUndefined();
    expect(() => stockCheckpointsPathFor("/data/checkpoints.db")).toThrow(expect.objectContaining({ code: "KEEL_ERR_STORE_URL_INVALID" }));
  });

  it("never shares checkpoints between two store files of one directory", async () => {
    const config = { configurable: { thread_id: "same-thread-id" } };
    const a = await createCheckpointer(`sqlite:${join(dir, "two", "a.db")}`);
    const b = await createCheckpointer(`sqlite:${join(dir, "two", "b.db")}`);
    try {
      expect(await countingGraph(a).invoke({ count: 100 }, config)).toEqual({ count: 101 });
      expect((await countingGraph(b).getState(config)).values).toEqual({});
      expect(await countingGraph(b).invoke({ count: 1 }, config)).toEqual({ count: 2 });
      expect((await countingGraph(a).getState(config)).values).toEqual({ count: 101 });
    } finally {
      await closeCheckpointer(a);
      await closeCheckpointer(b);
    }
  });

  it("migrates the shared checkpoints.db of an earlier release into keel.db only", async () => {
    const legacyDir = join(dir, "legacy");
    const config = { configurable: { thread_id: "old-thread" } };
    // An earlier release wrote keel.db's checkpoints to checkpoints.db.
    mkdirSync(legacyDir, { recursive: true });
    const old = SqliteSaver.fromConnString(join(legacyDir, "checkpoints.db"));
    await countingGraph(old).invoke({ count: 41 }, config);
    old.db.close();

    const upgraded = await createCheckpointer(`sqlite:${join(legacyDir, "keel.db")}`);
    try {
      expect((await countingGraph(upgraded).getState(config)).values).toEqual({ count: 42 });
    } finally {
      await closeCheckpointer(upgraded);
    }
    // Another store file of the directory does not inherit it.
    const other = await createCheckpointer(`sqlite:${join(legacyDir, "other.db")}`);
    try {
      expect((await countingGraph(other).getState(config)).values).toEqual({});
    } finally {
      await closeCheckpointer(other);
    }
  });

  it("refuses a URL that is neither sqlite: nor postgres://", async () => {
    await expect(createSqlRunStore("mysql://localhost/keel")).rejects.toMatchObject({ code: "KEEL_ERR_STORE_URL_INVALID" });
    await expect(createCheckpointer("file:./x.db")).rejects.toMatchObject({ code: "KEEL_ERR_STORE_URL_INVALID" });
  });

  it("serves the store and checkpointer ports from the plugin, waiting for the database", async () => {
    const url = `sqlite:${join(dir, "ports", "keel.db")}`;
    const store = storeSqlPlugin.services!.store!({ url }) as RunStore;
    try {
      await store.createThread(thread("p"));
      expect((await store.getThread("p"))?.threadId).toBe("p");
    } finally {
      await store.close();
    }
    const checkpointer = storeSqlPlugin.services!.checkpointer!({ url }) as Awaited<ReturnType<typeof createCheckpointer>>;
    try {
      expect(await countingGraph(checkpointer).invoke({ count: 1 }, { configurable: { thread_id: "p" } })).toEqual({ count: 2 });
    } finally {
      await closeCheckpointer(checkpointer);
    }
  });

  it("checkpoints a LangGraph graph into the store's own file (tables keel_ckpt_*), readable after reopening", async () => {
    const url = `sqlite:${join(dir, "checkpoints", "keel.db")}`;
    const config = { configurable: { thread_id: "cp-thread" } };
    const first = await createCheckpointer(url);
    try {
      expect(await countingGraph(first).invoke({ count: 1 }, config)).toEqual({ count: 2 });
      expect(await countingGraph(first).invoke({ count: 10 }, config)).toEqual({ count: 13 });
    } finally {
      await closeCheckpointer(first);
    }
    expect(existsSync(join(dir, "checkpoints", "checkpoints.db"))).toBe(false);
    expect(existsSync(join(dir, "checkpoints", "keel.db"))).toBe(true);

    const reopened = await createCheckpointer(url);
    try {
      expect((await countingGraph(reopened).getState(config)).values).toEqual({ count: 13 });
      const db = new Database(join(dir, "checkpoints", "keel.db"));
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = (db.prepare(`select name from sqlite_master where type = 'table' and name like 'keel_ckpt_%' order by name`).all() as Array<{ name: string }>).map((t) => t.name);
      expect(tables).toEqual(["keel_ckpt_checkpoints", "keel_ckpt_meta", "keel_ckpt_values", "keel_ckpt_writes"]);
      db.close();
    } finally {
      await closeCheckpointer(reopened);
    }
  });
});

describe("store-sql on SQLite: one better-sqlite3 connection", () => {
  const requireFrom = (path: string) => createRequire(path);
  const rootRequire = createRequire(import.meta.url);

  it("MikroORM's better-sqlite driver loads better-sqlite3 12.x, the one copy the package depends on", () => {
    // knex's dialect (inside @mikro-orm/knex) is where the driver calls require("better-sqlite3").
    const driver = rootRequire.resolve("@mikro-orm/better-sqlite");
    const dialect = join(dirname(requireFrom(driver).resolve("@mikro-orm/knex")), "dialects", "sqlite", "BetterSqliteKnexDialect.js");
    expect(existsSync(dialect)).toBe(true);
    const fromDriver = requireFrom(driver).resolve("better-sqlite3/package.json");
    const fromDialect = requireFrom(dialect).resolve("better-sqlite3/package.json");
    const fromRoot = rootRequire.resolve("better-sqlite3/package.json");
    expect(fromDriver).toBe(fromRoot);
    expect(fromDialect).toBe(fromRoot);
    expect((rootRequire(fromRoot) as { version: string }).version).toMatch(/^12\./);
  });

  it("hands out the store's own connection: a better-sqlite3 Database of that copy, on the store's file", async () => {
    const path = join(dir, "handle", "keel.db");
    const store = await SqlRunStore.open(parseStoreUrl(`sqlite:${path}`));
    await store.init();
    try {
      const db = sqliteDatabaseOf(store);
      expect(db).toBeInstanceOf(rootRequire("better-sqlite3"));
      expect(db.name).toBe(path);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      // Same connection, not merely the same file: a temporary table is private to its connection.
      db.exec("create temp table handle_probe (x integer)");
      await store.createThread(thread("h"));
      expect(db.prepare("select thread_id from keel_threads").all()).toEqual([{ thread_id: "h" }]);
      db.exec("insert into keel_threads select 'h2', owner, status, metadata, created_at, updated_at from keel_threads where thread_id = 'h'");
      expect((await store.getThread("h2"))?.owner).toBe("u");
    } finally {
      await store.close();
    }
    expect(sqliteDatabaseOf(store).open).toBe(false);
  });

  it("sees an in-memory store's tables through the handle (there is only one connection)", async () => {
    const store = await SqlRunStore.open(parseStoreUrl("sqlite::memory:"));
    await store.init();
    try {
      await store.createThread(thread("m"));
      expect(sqliteDatabaseOf(store).prepare("select count(*) as n from keel_threads").get()).toEqual({ n: 1 });
    } finally {
      await store.close();
    }
  });

  it("rolls a failed admission back, leaving the connection outside any transaction", async () => {
    const store = await SqlRunStore.open(parseStoreUrl("sqlite::memory:"));
    await store.init();
    try {
      const db = sqliteDatabaseOf(store);
      await expect(store.admitRun(run("r", "missing"))).rejects.toMatchObject({ code: "KEEL_ERR_STORE_THREAD_NOT_FOUND" });
      expect(db.inTransaction).toBe(false);
      await store.createThread(thread("t"));
      await store.admitRun(run("r", "t"));
      await expect(store.admitRun(run("r", "t"))).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });
      expect(db.inTransaction).toBe(false);
      expect(db.prepare("select count(*) as n from keel_runs").get()).toEqual({ n: 1 });
    } finally {
      await store.close();
    }
  });

  it("waits for a transaction already open on the connection instead of joining it", async () => {
    const store = await SqlRunStore.open(parseStoreUrl("sqlite::memory:"));
    await store.init();
    try {
      const db = sqliteDatabaseOf(store);
      await store.createThread(thread("t"));
      db.exec("begin");
      db.exec("insert into keel_threads values ('rolled-back', 'u', 'idle', '{}', 'x', 'x')");
      const admitted = store.admitRun(run("r", "t"));
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(db.prepare("select count(*) as n from keel_runs").get()).toEqual({ n: 0 });
      db.exec("rollback");
      expect((await admitted).ok).toBe(true);
      // The admission committed on its own; the other transaction's row is gone.
      expect(db.prepare("select thread_id from keel_threads order by thread_id").all()).toEqual([{ thread_id: "t" }]);
      expect(db.prepare("select run_id from keel_runs").all()).toEqual([{ run_id: "r" }]);
    } finally {
      await store.close();
    }
  });

  it("has no handle to give on PostgreSQL", () => {
    expect(() => sqliteDatabaseOf({ sqliteDatabase: () => undefined } as unknown as SqlRunStore)).toThrow(expect.objectContaining({ code: "KEEL_ERR_STORE_URL_INVALID" }));
  });
});
