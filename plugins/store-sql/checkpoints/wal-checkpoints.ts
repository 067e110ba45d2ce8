/**
 * SQLite WAL checkpoints off the event loop.
 *
 * In WAL mode a commit appends pages to the `-wal` file; copying them back into the
 * database file (a WAL "checkpoint") happens inside whichever commit crosses
 * `wal_autocheckpoint` pages (1,000 by default): that commit reads and writes about a
 * thousand pages and syncs both files (`synchronous = NORMAL`), on the event loop. In a
 * checkpointed tool loop that is a few milliseconds every ~60 steps, measured at
 * 0.3–0.5 ms a turn (N = 400 and 1,000, interleaved in one process, median of 5–7).
 *
 * A handle the checkpointer owns hands this to one worker thread per process, once it
 * has committed `SqliteExecutorOptions.backgroundCheckpointsAfter` writes (short-lived
 * handles never start it). The worker holds its own connection to each watched file and
 * runs `PRAGMA wal_checkpoint(PASSIVE)` on it every `WAL_CHECKPOINT_EVERY_MS`: a passive
 * checkpoint copies what no reader still needs and never blocks a writer, so the log
 * stays small and the event loop never copies it. The handle's own `wal_autocheckpoint`
 * is raised to `WAL_BACKSTOP_PAGES` (about 8 MB of log), a backstop should the worker
 * fall behind; if the worker fails or exits, every watched handle gets SQLite's default
 * back and checkpoints inline as before.
 *
 * The worker never keeps the process alive (it is unref'd), except while a release is
 * being acknowledged: `release()` resolves once the worker closed its connection, so a
 * closed saver leaves no connection to its file behind (the last connection to close
 * checkpoints the log and removes it, as without the worker).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { BetterSqliteDatabase } from "./sqlite-driver.js";

/** How often the worker checkpoints each watched file (ms). */
export const WAL_CHECKPOINT_EVERY_MS = 50;
/**
 * A watched handle's own `wal_autocheckpoint` (pages): the backstop. It also bounds the log's
 * size: a loop committing every millisecond rarely leaves the worker's passive checkpoint a
 * quiet moment to finish in, so the log restarts only after the handle's own checkpoint
 * (nearly everything already copied) at this many pages. 10,000 pages let a busy `-wal`
 * reach 41 MB; 2,000 keep it at 8.3 MB for the same per-turn cost (measured at N = 1,000).
 */
export const WAL_BACKSTOP_PAGES = 2_000;
/** SQLite's default `wal_autocheckpoint`, given back when the worker is gone. */
export const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;

/** The worker (CommonJS, run with `eval`): one connection per watched path, reference-counted by the main thread. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const dbs = new Map();
let timer;
const tick = () => {
  for (const db of dbs.values()) {
    try { db.pragma("wal_checkpoint(PASSIVE)"); } catch { /* busy or gone: the next tick tries again */ }
  }
};
parentPort.on("message", (m) => {
  if (m.op === "watch" && !dbs.has(m.path)) {
    try {
      const db = new Database(m.path, { fileMustExist: true });
      db.pragma("busy_timeout = 0");
      dbs.set(m.path, db);
    } catch (error) {
      parentPort.postMessage({ op: "refused", path: m.path, message: String(error && error.message || error) });
    }
  } else if (m.op === "unwatch") {
    const db = dbs.get(m.path);
    dbs.delete(m.path);
    try { if (db) db.close(); } catch { /* closing is best effort */ }
    parentPort.postMessage({ op: "released", id: m.id });
  }
  if (dbs.size > 0 && timer === undefined) timer = setInterval(tick, workerData.everyMs);
  if (dbs.size === 0 && timer !== undefined) { clearInterval(timer); timer = undefined; }
});
`;

type Message = { op: "released"; id: number } | { op: "refused"; path: string; message: string };

/** The process's checkpoint worker and what it watches. */
class WalCheckpointWorker {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 0;
  /** Watched handles by path (a path is watched while it has a handle). */
  private readonly watched = new Map<string, Set<BetterSqliteDatabase>>();
  private readonly releases = new Map<number, () => void>();

  /** Hands `db`'s checkpoints (its file is `path`) to the worker; the function releases it. Undefined: the worker is unavailable, `db` checkpoints inline. */
  watch(db: BetterSqliteDatabase, path: string): (() => Promise<void>) | undefined {
    const worker = this.start();
    if (!worker) return undefined;
    let handles = this.watched.get(path);
    if (!handles) {
      handles = new Set();
      this.watched.set(path, handles);
      worker.postMessage({ op: "watch", path });
    }
    handles.add(db);
    db.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.restore(db);
      const left = this.watched.get(path);
      left?.delete(db);
      if (!left || left.size > 0) return;
      this.watched.delete(path);
      await this.unwatch(path);
    };
  }

  /** Stops the worker as if it had failed (tests: the handles fall back to inline checkpoints). */
  async failForTest(): Promise<void> {
    await this.worker?.terminate();
  }

  private unwatch(path: string): Promise<void> {
    const worker = this.worker;
    if (!worker || this.failed) return Promise.resolve();
    const id = this.nextId++;
    worker.ref();
    return new Promise<void>((resolve) => {
      this.releases.set(id, resolve);
      worker.postMessage({ op: "unwatch", path, id });
    });
  }

  private start(): Worker | undefined {
    if (this.failed) return undefined;
    if (this.worker) return this.worker;
    try {
      const driver = createRequire(import.meta.url).resolve("better-sqlite3");
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, everyMs: WAL_CHECKPOINT_EVERY_MS } });
      worker.unref();
      worker.on("message", (m: Message) => this.onMessage(m));
      worker.on("error", () => this.fail());
      worker.on("exit", () => this.fail());
      this.worker = worker;
      return worker;
    } catch {
      this.failed = true;
      return undefined;
    }
  }

  private onMessage(m: Message): void {
    if (m.op === "refused") {
      // The worker could not open the file: its handles checkpoint inline.
      for (const db of this.watched.get(m.path) ?? []) this.restore(db);
      this.watched.delete(m.path);
      return;
    }
    this.releases.get(m.id)?.();
    this.releases.delete(m.id);
    if (this.releases.size === 0) this.worker?.unref();
  }

  /** The worker is gone: every handle checkpoints inline again, pending releases resolve. */
  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    for (const handles of this.watched.values()) for (const db of handles) this.restore(db);
    this.watched.clear();
    for (const resolve of this.releases.values()) resolve();
    this.releases.clear();
  }

  private restore(db: BetterSqliteDatabase): void {
    if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  }
}

export const walCheckpointWorker = new WalCheckpointWorker();
