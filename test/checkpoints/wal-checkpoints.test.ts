/**
 * WAL checkpoints in a worker thread (`wal-checkpoints.ts`): once an owned SQLite handle
 * has written steadily, its log is copied into the database file by the worker (the
 * handle's own auto-checkpoint is only a backstop), reads are unchanged, closing leaves
 * no connection behind (the log is removed), and when the worker is gone every handle
 * checkpoints inline again.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteHandle } from "../../plugins/store-sql/checkpointer.js";
import { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { SqliteExecutor, type SqliteExecutorOptions } from "../../plugins/store-sql/checkpoints/sqlite-executor.js";
import { SQLITE_DEFAULT_AUTOCHECKPOINT, WAL_BACKSTOP_PAGES, walCheckpointWorker } from "../../plugins/store-sql/checkpoints/wal-checkpoints.js";

const dir = mkdtempSync(join(tmpdir(), "keel-wal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string, options: SqliteExecutorOptions) {
  const path = join(dir, `${name}.db`);
  const db = openSqliteHandle(path);
  const saver = new KeelCheckpointSaver(new SqliteExecutor(db, true, options));
  return { path, db, saver, autocheckpoint: () => Number(db.pragma("wal_autocheckpoint", { simple: true })) };
}

/** `steps` checkpoints of a growing thread (2 KB a message, so pages pile up in the log); the last one's config. */
async function writeSteps(saver: KeelCheckpointSaver, steps: number) {
  let messages: HumanMessage[] = [];
  let config = { configurable: { thread_id: "t", checkpoint_ns: "" } as Record<string, unknown> };
  for (let i = 0; i < steps; i++) {
    messages = [...messages, new HumanMessage({ content: `${i} ${"x".repeat(2000)}`, id: `m${i}` })];
    const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(i), channel_values: { messages }, channel_versions: { messages: i + 1 } };
    config = (await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, {})) as typeof config;
  }
  return messages.map((m) => m.id);
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe("SQLite WAL checkpoints in a worker thread", () => {
  it("an owned handle that wrote steadily has its log checkpointed by the worker; reads unchanged; close removes the log", async () => {
    const { path, saver, autocheckpoint } = open("background", { backgroundCheckpointsAfter: 5 });
    await saver.setup();
    expect(autocheckpoint()).toBe(SQLITE_DEFAULT_AUTOCHECKPOINT);
    const ids = await writeSteps(saver, 120);
    // Inline checkpoints now only past the backstop, and the log never came near it (its size is
    // its high-water mark: frames of a page plus a 24-byte header), so a database file that grows
    // is the worker's doing.
    expect(autocheckpoint()).toBe(WAL_BACKSTOP_PAGES);
    expect(statSync(`${path}-wal`).size).toBeLessThan(WAL_BACKSTOP_PAGES * (4096 + 24));
    expect(await until(() => statSync(path).size > 100 * 2000)).toBe(true);
    const read = await saver.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "" } });
    expect((read!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id)).toEqual(ids);
    await saver.close();
    // The worker let go of the file before the handle closed: the last connection removed the log.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const again = open("background", { backgroundCheckpointsAfter: Infinity });
    const reread = await again.saver.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "" } });
    expect((reread!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id)).toEqual(ids);
    await again.saver.close();
  });

  it("a handle below the threshold, or with backgroundCheckpointsAfter: Infinity, checkpoints inline (SQLite's default)", async () => {
    const below = open("below", { backgroundCheckpointsAfter: 1_000 });
    const never = open("never", { backgroundCheckpointsAfter: Infinity });
    await writeSteps(below.saver, 30);
    await writeSteps(never.saver, 30);
    expect([below.autocheckpoint(), never.autocheckpoint()]).toEqual([SQLITE_DEFAULT_AUTOCHECKPOINT, SQLITE_DEFAULT_AUTOCHECKPOINT]);
    await below.saver.close();
    await never.saver.close();
  });

  it("a handle the executor does not own is never handed to the worker", async () => {
    const path = join(dir, "shared.db");
    const db = openSqliteHandle(path);
    const saver = new KeelCheckpointSaver(new SqliteExecutor(db, false, { backgroundCheckpointsAfter: 1 }));
    await writeSteps(saver, 10);
    expect(Number(db.pragma("wal_autocheckpoint", { simple: true }))).toBe(SQLITE_DEFAULT_AUTOCHECKPOINT);
    await saver.close();
    expect(db.open).toBe(true);
    db.close();
  });

  // Last: the worker stays gone for the rest of this file.
  it("when the worker is gone, watched handles get SQLite's default back and new ones checkpoint inline", async () => {
    const watched = open("watched", { backgroundCheckpointsAfter: 1 });
    await writeSteps(watched.saver, 5);
    expect(watched.autocheckpoint()).toBe(WAL_BACKSTOP_PAGES);
    await walCheckpointWorker.failForTest();
    expect(await until(() => watched.autocheckpoint() === SQLITE_DEFAULT_AUTOCHECKPOINT)).toBe(true);
    const later = open("later", { backgroundCheckpointsAfter: 1 });
    await writeSteps(later.saver, 5);
    expect(later.autocheckpoint()).toBe(SQLITE_DEFAULT_AUTOCHECKPOINT);
    await watched.saver.close();
    await later.saver.close();
    expect(existsSync(`${watched.path}-wal`)).toBe(false);
  });
});
