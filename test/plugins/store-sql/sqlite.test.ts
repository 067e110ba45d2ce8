import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import storeSqlPlugin, { checkpointsPathFor, closeCheckpointer, createCheckpointer, createSqlRunStore, parseStoreUrl } from "../../../plugins/store-sql/index.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import { describeRunStoreConformance } from "../../runs/store-conformance.js";
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
describeRunStoreConformance("SQLite file", () => createSqlRunStore(conformanceUrl), {
  // A second store on the same file: its own connection, like another worker.
  makePeers: async () => [await createSqlRunStore(conformanceUrl)],
});

describeRunStoreConformance("SQLite in memory", () => createSqlRunStore("sqlite::memory:"));

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

  it("reads store URLs and puts checkpoints beside the store file", () => {
    expect(parseStoreUrl("sqlite:./.keel/keel.db")).toEqual({ dialect: "sqlite", path: "./.keel/keel.db" });
    expect(parseStoreUrl("sqlite:///var/keel/keel.db")).toEqual({ dialect: "sqlite", path: "/var/keel/keel.db" });
    expect(parseStoreUrl("sqlite::memory:")).toEqual({ dialect: "sqlite", path: ":memory:" });
    expect(parseStoreUrl("postgresql://u:p@db:5432/keel")).toEqual({ dialect: "postgres", url: "postgresql://u:p@db:5432/keel" });
    expect(checkpointsPathFor("./.keel/keel.db")).toBe(".keel/checkpoints.db");
    expect(checkpointsPathFor(":memory:")).toBe(":memory:");
    expect(() => checkpointsPathFor("/data/checkpoints.db")).toThrow(expect.objectContaining({ code: "KEEL_ERR_STORE_URL_INVALID" }));
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
