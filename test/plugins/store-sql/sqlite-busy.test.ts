import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeCheckpointer, createCheckpointer, createSqlRunStore, sqliteDatabaseOf, SqliteExecutor } from "../../../plugins/store-sql/index.js";
import { isSqliteBusy, retryWhileBusy } from "../../../plugins/store-sql/sqlite-busy.js";
import { tempDir } from "../../e2e/serve-process.js";

const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3");

/**
 * Another process holds the SQLite file's write lock for `holdMs` (BEGIN IMMEDIATE … COMMIT);
 * resolves once it holds it, with a promise of its exit.
 */
async function holdWriteLock(path: string, holdMs: number): Promise<{ exited: Promise<number | null> }> {
  const script = `const D = require(${JSON.stringify(betterSqlite)}); const db = new D(${JSON.stringify(path)}); db.exec("BEGIN IMMEDIATE"); process.stdout.write("locked\\n"); setTimeout(() => { db.exec("COMMIT"); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    void exited.then((code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return { exited };
}

/**
 * SQLite busy/locked is a retry, not a failure of the call (and never of the process):
 * with another process holding the write lock longer than busy_timeout (lowered to 100 ms
 * on the test's connections; 5 s by default), the store's and the checkpointer's writes
 * land once the lock is free.
 */
describe("store-sql on SQLite: a write lock held by another process", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dbPath = () => {
    const dir = tempDir("keel-sqlite-busy-");
    dirs.push(dir);
    return join(dir, "keel.db");
  };

  it("the run store's write waits past busy_timeout and lands", async () => {
    const path = dbPath();
    const store = await createSqlRunStore(`sqlite:${path}`);
    try {
      const at = new Date(0).toISOString();
      await store.createThread({ threadId: "t-busy", owner: "alice", status: "idle", metadata: {}, createdAt: at, updatedAt: at });
      sqliteDatabaseOf(store).pragma("busy_timeout = 100");
      const holder = await holdWriteLock(path, 250);
      await store.updateThread("t-busy", { status: "busy", metadata: { written: "while locked" } }, new Date(1).toISOString());
      expect(await holder.exited).toBe(0);
      expect(await store.getThread("t-busy")).toMatchObject({ status: "busy", metadata: { written: "while locked" } });
    } finally {
      await store.close();
    }
  });

  it("the checkpointer's write waits past busy_timeout and lands", async () => {
    const path = dbPath();
    const saver = await createCheckpointer(`sqlite:${path}`);
    try {
      const executor = saver.executor as SqliteExecutor;
      executor.db.pragma("busy_timeout = 100");
      const holder = await holdWriteLock(path, 250);
      await saver.writeMeta("busy-test", "written while locked");
      expect(await holder.exited).toBe(0);
      expect(await saver.readMeta("busy-test")).toBe("written while locked");
    } finally {
      await closeCheckpointer(saver);
    }
  });

  it("retries only busy errors, and gives up after its retries", async () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(isSqliteBusy(busy)).toBe(true);
    expect(isSqliteBusy(new Error("UNIQUE constraint failed"))).toBe(false);
    let calls = 0;
    await expect(
      Promise.resolve(
        retryWhileBusy(() => {
          calls++;
          throw busy;
        }, 2, 1),
      ),
    ).rejects.toBe(busy);
    expect(calls).toBe(3);
    calls = 0;
    const other = new Error("no such table: x");
    await expect(
      Promise.resolve(
        retryWhileBusy(() => {
          calls++;
          throw other;
        }, 2, 1),
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
    // A synchronous success stays synchronous.
    expect(retryWhileBusy(() => 42)).toBe(42);
  });
});
