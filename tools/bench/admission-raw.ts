/**
 * The admission benchmark's floor: the raw drivers (better-sqlite3, pg) running the same
 * transaction the run store runs to admit a run on a fresh thread — lock the thread and
 * check it exists, read its active runs, insert the pending run — on the store's own
 * tables (the harness creates the schema through the store, then opens these on it).
 * Written before the store's admission path changed, and never changed with it.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** One admission on a fresh thread: what both the store and the raw drivers are asked to do. */
export interface AdmissionCase {
  runId: string;
  threadId: string;
  user: string;
  now: string;
  request: string;
}

export interface RawAdmitter {
  admit(admission: AdmissionCase): Promise<void>;
  /** Inserts threads outside the measured window. */
  createThreads(threadIds: readonly string[], owner: string, now: string): Promise<void>;
  /** Removes the threads (and their runs) whose id starts with `prefix`: the databases are shared. */
  deleteThreads(prefix: string): Promise<void>;
  close(): Promise<void>;
}

interface Statement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}
interface Database {
  prepare(sql: string): Statement;
  pragma(sql: string): unknown;
  exec(sql: string): void;
  close(): void;
}

const INSERT_RUN =
  "insert into keel_runs (run_id, thread_id, assistant_id, status, outcome, multitask_strategy, owner, epoch, lease_expires_at, created_at, updated_at, user_id, request) " +
  "values (?, ?, 'lead', 'pending', null, 'reject', null, 0, null, ?, ?, ?, ?)";
const ACTIVE_RUNS = "select * from keel_runs where thread_id = ? and status in ('pending', 'running') order by created_at asc, id asc";
const INSERT_THREAD = "insert into keel_threads (thread_id, owner, status, metadata, created_at, updated_at) values (?, ?, 'idle', '{}', ?, ?)";

/** better-sqlite3 on the store's file, with the store's pragmas; one `BEGIN IMMEDIATE` transaction per admission. */
export function rawSqliteAdmitter(path: string): RawAdmitter {
  const BetterSqlite = require("better-sqlite3") as new (path: string) => Database;
  const db = new BetterSqlite(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  const begin = db.prepare("begin immediate");
  const commit = db.prepare("commit");
  const rollback = db.prepare("rollback");
  const thread = db.prepare("select thread_id from keel_threads where thread_id = ?");
  const active = db.prepare(ACTIVE_RUNS);
  const insert = db.prepare(INSERT_RUN);
  const insertThread = db.prepare(INSERT_THREAD);
  return {
    admit: async (a) => {
      begin.run();
      try {
        if (thread.get(a.threadId) === undefined) throw new Error(`thread ${a.threadId} does not exist`);
        if (active.all(a.threadId).length > 0) throw new Error(`thread ${a.threadId} is busy`);
        insert.run(a.runId, a.threadId, a.now, a.now, a.user, a.request);
        commit.run();
      } catch (error) {
        rollback.run();
        throw error;
      }
    },
    createThreads: async (ids, owner, now) => {
      begin.run();
      for (const id of ids) insertThread.run(id, owner, now, now);
      commit.run();
    },
    deleteThreads: async (prefix) => {
      db.prepare("delete from keel_runs where thread_id like ? || '%'").run(prefix);
      db.prepare("delete from keel_threads where thread_id like ? || '%'").run(prefix);
    },
    close: async () => db.close(),
  };
}

interface PgClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(): void;
}
interface PgPool {
  connect(): Promise<PgClient>;
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}

const pgParams = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** pg's Pool (its default size, 10, as the store's pool) on the store's database; one transaction per admission. */
export function rawPostgresAdmitter(url: string): RawAdmitter {
  const { Pool } = require("pg") as { Pool: new (options: { connectionString: string; max: number }) => PgPool };
  const pool = new Pool({ connectionString: url, max: 10 });
  const lockThread = "select thread_id from keel_threads where thread_id = $1 for update";
  const active = pgParams(ACTIVE_RUNS);
  const insert = pgParams(INSERT_RUN);
  const insertThread = pgParams(INSERT_THREAD);
  return {
    admit: async (a) => {
      const client = await pool.connect();
      try {
        await client.query("begin");
        try {
          if ((await client.query(lockThread, [a.threadId])).rows.length !== 1) throw new Error(`thread ${a.threadId} does not exist`);
          if ((await client.query(active, [a.threadId])).rows.length > 0) throw new Error(`thread ${a.threadId} is busy`);
          await client.query(insert, [a.runId, a.threadId, a.now, a.now, a.user, a.request]);
          await client.query("commit");
        } catch (error) {
          await client.query("rollback");
          throw error;
        }
      } finally {
        client.release();
      }
    },
    createThreads: async (ids, owner, now) => {
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const values = chunk.map((_, j) => `($${j * 4 + 1}, $${j * 4 + 2}, 'idle', '{}', $${j * 4 + 3}, $${j * 4 + 4})`).join(", ");
        await pool.query(`insert into keel_threads (thread_id, owner, status, metadata, created_at, updated_at) values ${values}`, chunk.flatMap((id) => [id, owner, now, now]));
      }
    },
    deleteThreads: async (prefix) => {
      await pool.query("delete from keel_runs where thread_id like $1 || '%'", [prefix]);
      await pool.query("delete from keel_threads where thread_id like $1 || '%'", [prefix]);
    },
    close: () => pool.end(),
  };
}
