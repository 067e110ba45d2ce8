/**
 * The RunStore on SQLite or PostgreSQL through MikroORM. Every operation runs on a fresh
 * EntityManager fork (no identity map shared between calls); writes that must be atomic
 * are either one conditional statement (claim, heartbeat, terminal writes: compare and
 * swap, judged by the affected row count) or one transaction (admission, deletion).
 * On SQLite those transactions run as raw SQL on the store's one better-sqlite3
 * connection, synchronously inside `BEGIN IMMEDIATE` (sqlite-database.ts), and that
 * connection is handed to whoever shares the file (`sqliteDatabase()`).
 */
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { RUN_STATUS_OF_OUTCOME } from "../../contracts/run/v1.js";
import { KeelError } from "../../kernel/errors.js";
import type { StatusV2Payload } from "../../kernel/loop/status.js";
import type { AdmissionLimits, AdmissionReplace, AdmissionResult, AdmissionStart, JournalEntry, JournalFence, RecentRunsFilter, RunRecord, RunRecordStatus, RunStore, ThreadFilter, ThreadRecord, ThreadSearch, ThreadStatus } from "../../kernel/runs/types.js";
import { JOURNAL_TABLE, JournalEntity, REPORTS_TABLE, ReportEntity, RUNS_TABLE, RunEntity, THREADS_TABLE, ThreadEntity, type RunRow } from "./entities.js";
import { admitOnPostgres, admitOnSqlite, DELETED_THREAD_STATUS } from "./admission-sql.js";
import { claimDueOnPostgres, claimDueOnSqlite, claimThreadOnPostgres, claimThreadOnSqlite } from "./claim-sql.js";
import { appendFencedOnPostgres, appendFencedOnSqlite } from "./journal-sql.js";
import { metadataEquals, type Dialect } from "./dialect-sql.js";
import type { ThreadExpiry } from "../../kernel/runs/thread-expiry.js";
import { expiredThreadsSql, forgetThreadExpirySql, getThreadExpirySql, setThreadExpirySql } from "./thread-expiry-sql.js";
import type { StoreOrm } from "./open-orm.js";
import { SharedDatabase } from "./shared-database.js";
import { rowToRun, rowToThread, threadToRow } from "./records.js";
import { immediateTransaction, prepared, type SqliteDatabase } from "./sqlite-database.js";
import { KeyedQueue } from "./keyed-queue.js";
import { retryMethodsWhileBusy } from "./sqlite-busy.js";
import { reportUnreachable } from "./store-unavailable.js";
import type { StoreTarget } from "./store-url.js";

const isoAt = (ms: number): string => new Date(ms).toISOString();
// Functions, not shared constants: MikroORM may normalize the objects it is given.
// `id` is the admission sequence.
const oldestFirst = () => ({ id: "asc" }) as const;
const newestFirst = () => ({ id: "desc" }) as const;
const activeStatuses = () => ({ $in: ["pending", "running"] });

/** Every store call that touches the database (all but init, close, ping): retried while SQLite is busy; on PostgreSQL, a lost connection is reported as KEEL_ERR_STORE_UNAVAILABLE. */
const STORE_METHODS = [
  "createThread",
  "getThread",
  "updateThread",
  "searchThreads",
  "countThreads",
  "deleteThread",
  "markThreadDeleted",
  "deletedThreads",
  "endedRuns",
  "admitRun",
  "getRun",
  "listRuns",
  "recentRuns",
  "activeRuns",
  "claimNext",
  "claimDue",
  "heartbeat",
  "completeRun",
  "cancelPending",
  "withdrawPending",
  "deleteFinishedRun",
  "countRuns",
  "expiredRuns",
  "expireRun",
  "appendJournal",
  "readJournal",
  "saveReport",
  "getReport",
  "setThreadExpiry",
  "getThreadExpiry",
  "expiredThreads",
  "forgetThreadExpiry",
] as const satisfies readonly (keyof SqlRunStore)[];

const THREAD_SORT_FIELDS = { thread_id: "threadId", status: "status", created_at: "createdAt", updated_at: "updatedAt" } as const;

export class SqlRunStore implements RunStore {
  private readonly admissionQueue = new KeyedQueue();
  private readonly orm: StoreOrm;
  private readonly dialect: Dialect;
  private readonly sqlite: SqliteDatabase | undefined;
  private released: Promise<void> | undefined;

  private constructor(private readonly db: SharedDatabase) {
    db.acquire();
    this.orm = db.orm;
    this.dialect = db.dialect;
    const sqlite = (this.sqlite = db.sqlite);
    // SQLite: a call that still found another connection's write lock after busy_timeout is retried (sqlite-busy.ts).
    if (sqlite) retryMethodsWhileBusy(this as SqlRunStore, STORE_METHODS);
    // PostgreSQL: a call whose connection failed is KEEL_ERR_STORE_UNAVAILABLE (store-unavailable.ts).
    else reportUnreachable(this as SqlRunStore, STORE_METHODS);
  }

  /** Connects; the schema is created or migrated by `init()`. */
  static async open(target: StoreTarget): Promise<SqlRunStore> {
    return new SqlRunStore(await SharedDatabase.open(target));
  }

  /** On a connection shared with companion stores (shared-database.ts); `init()` migrates it once for all. */
  static on(db: SharedDatabase): SqlRunStore {
    return new SqlRunStore(db);
  }

  /** The connection this store holds: companion stores (crons, items, assistants) open on it instead of their own pool. */
  database(): SharedDatabase {
    return this.db;
  }

  /**
   * SQLite: the store's one better-sqlite3 connection (`Database`), for putting other
   * tables in the same file and other statements in the same transaction (see the
   * plugin's README). Undefined on PostgreSQL. Closed by `close()`.
   */
  sqliteDatabase(): SqliteDatabase | undefined {
    return this.sqlite;
  }

  /** Idempotent: the schema is migrated once per instance. */
  init(): Promise<void> {
    return this.db.migrate();
  }

  /** Releases the connection (closed once its last holder released it). Idempotent. */
  close(): Promise<void> {
    this.released ??= this.db.release();
    return this.released;
  }

  setThreadExpiry(expiry: ThreadExpiry): Promise<void> {
    return setThreadExpirySql(() => this.em(), expiry);
  }

  getThreadExpiry(threadId: string): Promise<ThreadExpiry | null> {
    return getThreadExpirySql(() => this.em(), threadId);
  }

  expiredThreads(now: string, limit: number): Promise<ThreadExpiry[]> {
    return expiredThreadsSql(() => this.em(), now, limit);
  }

  forgetThreadExpiry(threadId: string): Promise<void> {
    return forgetThreadExpirySql(() => this.em(), threadId);
  }

  /** One `select 1` on the store's connection pool: rejects while the database cannot be reached (a fresh connection is tried each time). */
  async ping(): Promise<void> {
    await this.em().execute("select 1");
  }

  async createThread(thread: ThreadRecord): Promise<ThreadRecord> {
    try {
      await this.em().insert(ThreadEntity, threadToRow(thread));
    } catch (error) {
      throw this.conflictOr(error, `thread \`${thread.threadId}\` already exists`);
    }
    return rowToThread(threadToRow(thread));
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const row = await this.em().findOne(ThreadEntity, { threadId, status: { $ne: DELETED_THREAD_STATUS } });
    return row ? rowToThread(row) : null;
  }

  async updateThread(threadId: string, patch: Partial<Pick<ThreadRecord, "status" | "metadata">>, now: string): Promise<void> {
    const data: { updatedAt: string; status?: string; metadata?: string } = { updatedAt: now };
    if (patch.status !== undefined) data.status = patch.status;
    if (patch.metadata !== undefined) data.metadata = JSON.stringify(patch.metadata);
    // A thread marked deleted keeps its mark: a run finishing meanwhile does not lift it.
    await this.em().nativeUpdate(ThreadEntity, { threadId, status: { $ne: DELETED_THREAD_STATUS } }, data);
  }

  async searchThreads(filter: ThreadSearch): Promise<ThreadRecord[]> {
    const order = filter.sortOrder ?? "desc";
    const field = THREAD_SORT_FIELDS[filter.sortBy ?? "created_at"];
    const qb = this.threadQuery(filter).select("*");
    // Ties go by the thread id in the same order (the memory store sorts the same way).
    qb.orderBy(field === "threadId" ? [{ threadId: order }] : [{ [field]: order }, { threadId: order }]).limit(filter.limit).offset(filter.offset);
    return (await qb.getResultList()).map(rowToThread);
  }

  async countThreads(filter: ThreadFilter): Promise<number> {
    return this.threadQuery(filter).getCount();
  }

  /** The caller's live threads (not marked deleted) that match `filter`. */
  private threadQuery(filter: ThreadFilter) {
    const qb = this.em().createQueryBuilder(ThreadEntity, "t").where({ owner: filter.owner, status: { $ne: DELETED_THREAD_STATUS } });
    if (filter.status !== undefined) qb.andWhere({ status: filter.status });
    if (filter.ids && filter.ids.length > 0) qb.andWhere({ threadId: { $in: [...filter.ids] } });
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (value === undefined) continue;
      const condition = metadataEquals(this.dialect, "t", key, value);
      qb.andWhere(condition.sql, condition.params);
    }
    return qb;
  }

  async deleteThread(threadId: string): Promise<boolean> {
    const runsOfThread = `select run_id from ${RUNS_TABLE} where thread_id = ?`;
    const statements = [
      `delete from ${JOURNAL_TABLE} where run_id in (${runsOfThread})`,
      `delete from ${REPORTS_TABLE} where run_id in (${runsOfThread})`,
      `delete from ${RUNS_TABLE} where thread_id = ?`,
    ];
    const db = this.sqlite;
    if (db) {
      return immediateTransaction(db, () => {
        const deleted = prepared(db, `delete from ${THREADS_TABLE} where thread_id = ?`).run(threadId).changes;
        for (const sql of statements) prepared(db, sql).run(threadId);
        return deleted === 1;
      });
    }
    return this.em().transactional(async (em) => {
      const deleted = await em.nativeDelete(ThreadEntity, { threadId });
      for (const sql of statements) await em.execute(sql, [threadId], "run");
      return deleted === 1;
    });
  }

  async markThreadDeleted(threadId: string, now: string): Promise<boolean> {
    const marked = await this.em().nativeUpdate(ThreadEntity, { threadId, status: { $ne: DELETED_THREAD_STATUS } }, { status: DELETED_THREAD_STATUS, updatedAt: now });
    return marked === 1;
  }

  async deletedThreads(limit: number): Promise<string[]> {
    const rows = await this.em().find(ThreadEntity, { status: DELETED_THREAD_STATUS }, { orderBy: { updatedAt: "asc", threadId: "asc" }, limit });
    return rows.map((row) => row.threadId);
  }

  async endedRuns(after: string, until: string, limit: number): Promise<RunRecord[]> {
    const rows = await this.em().find(
      RunEntity,
      { status: { $nin: ["pending", "running"] }, updatedAt: { $gt: after, $lte: until } },
      { orderBy: { updatedAt: "asc", id: "asc" }, limit },
    );
    return rows.map(rowToRun);
  }

  async admitRun(run: RunRecord, limits: AdmissionLimits = {}, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult> {
    try {
      if (this.sqlite) return await admitOnSqlite(this.sqlite, run, limits, start, replace);
      // One admission per thread at a time from this store (keyed-queue.ts): the rest wait here, not on a pooled connection.
      return await this.admissionQueue.run(run.threadId, () => admitOnPostgres(this.em(), run, limits, start, replace));
    } catch (error) {
      throw this.conflictOr(error, `run \`${run.runId}\` already exists`);
    }
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = await this.em().findOne(RunEntity, { runId });
    return row ? rowToRun(row) : null;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunRecordStatus }): Promise<RunRecord[]> {
    const where = options.status === undefined ? { threadId } : { threadId, status: options.status };
    const rows = await this.em().find(RunEntity, where, { orderBy: newestFirst(), limit: options.limit, offset: options.offset });
    return rows.map(rowToRun);
  }

  /** The run-status feed's snapshot: the user's newest runs across threads, in one query. */
  async recentRuns(filter: RecentRunsFilter): Promise<RunRecord[]> {
    const where: Record<string, unknown> = { userId: filter.user };
    if (filter.statuses) where.status = { $in: [...filter.statuses] };
    if (filter.assistantId !== undefined) where.assistantId = filter.assistantId;
    if (filter.threadId !== undefined) where.threadId = filter.threadId;
    const rows = await this.em().find(RunEntity, where, { orderBy: newestFirst(), limit: filter.limit });
    return rows.map(rowToRun);
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return (await this.em().find(RunEntity, { threadId, status: activeStatuses() }, { orderBy: oldestFirst() })).map(rowToRun);
  }

  /** The thread's next due run (claim-sql.ts). */
  async claimNext(threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    if (this.sqlite) return claimThreadOnSqlite(this.sqlite, threadId, owner, ttlMs, now);
    return claimThreadOnPostgres(this.em(), (error) => this.isUniqueViolation(error), threadId, owner, ttlMs, now);
  }

  /** The claim queue's next due run of any thread (claim-sql.ts). */
  async claimDue(owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    if (this.sqlite) return claimDueOnSqlite(this.sqlite, owner, ttlMs, now);
    return claimDueOnPostgres(() => this.em(), (error) => this.isUniqueViolation(error), owner, ttlMs, now);
  }

  async heartbeat(runId: string, owner: string, epoch: number, ttlMs: number, now: number): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, owner, epoch, status: "running" },
      { leaseExpiresAt: isoAt(now + ttlMs), updatedAt: isoAt(now) },
    );
    return updated === 1;
  }

  async completeRun(runId: string, owner: string, epoch: number, update: { status: RunRecordStatus; outcome: StatusV2Payload }, now: string): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, owner, epoch, status: "running" },
      terminalWrite(update.status, update.outcome, now),
    );
    return updated === 1;
  }

  async cancelPending(runId: string, outcome: StatusV2Payload, now: string): Promise<boolean> {
    const updated = await this.em().nativeUpdate(RunEntity, { runId, status: "pending" }, terminalWrite("interrupted", outcome, now));
    return updated === 1;
  }

  /** The run row only while terminal, then its journal and report, in one transaction. */
  async deleteFinishedRun(runId: string): Promise<boolean> {
    const finished = `delete from ${RUNS_TABLE} where run_id = ? and status not in ('pending', 'running')`;
    const children = [`delete from ${JOURNAL_TABLE} where run_id = ?`, `delete from ${REPORTS_TABLE} where run_id = ?`];
    const db = this.sqlite;
    if (db) {
      return immediateTransaction(db, () => {
        if (prepared(db, finished).run(runId).changes !== 1) return false;
        for (const sql of children) prepared(db, sql).run(runId);
        return true;
      });
    }
    return this.em().transactional(async (em) => {
      if ((await em.nativeDelete(RunEntity, { runId, status: { $nin: ["pending", "running"] } })) !== 1) return false;
      for (const sql of children) await em.execute(sql, [runId], "run");
      return true;
    });
  }

  /** One conditional DELETE: only a `pending` run that was never claimed (epoch 0); a never-started run has no journal or report. */
  async withdrawPending(runId: string): Promise<boolean> {
    return (await this.em().nativeDelete(RunEntity, { runId, status: "pending", epoch: 0 })) === 1;
  }

  async countRuns(status: "pending" | "running"): Promise<number> {
    return this.em().count(RunEntity, { status });
  }

  async expiredRuns(now: number): Promise<RunRecord[]> {
    const rows = await this.em().find(RunEntity, { status: "running", leaseExpiresAt: { $lt: isoAt(now) } }, { orderBy: oldestFirst() });
    return rows.map(rowToRun);
  }

  async expireRun(runId: string, epoch: number, outcome: StatusV2Payload, now: number): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, epoch, status: "running", leaseExpiresAt: { $lt: isoAt(now) } },
      terminalWrite(RUN_STATUS_OF_OUTCOME[outcome.status], outcome, isoAt(now)),
    );
    return updated === 1;
  }

  async appendJournal(runId: string, entries: readonly JournalEntry[], fence?: JournalFence): Promise<void> {
    if (entries.length === 0) return;
    // Fenced: the lease is checked in the insert's transaction (journal-sql.ts).
    if (fence) return this.sqlite ? appendFencedOnSqlite(this.sqlite, runId, entries, fence) : appendFencedOnPostgres(this.em(), runId, entries, fence);
    // One multi-row INSERT: a batch is stored whole or not at all.
    await this.em().insertMany(
      JournalEntity,
      entries.map((entry) => ({ runId, seq: entry.seq, entry: JSON.stringify(entry) })),
    );
  }

  async readJournal(runId: string): Promise<JournalEntry[]> {
    const rows = await this.em().find(JournalEntity, { runId }, { orderBy: { id: "asc" } });
    return rows.map((row) => JSON.parse(row.entry) as JournalEntry);
  }

  async saveReport(runId: string, report: unknown): Promise<void> {
    await this.em().upsert(ReportEntity, { runId, report: JSON.stringify(report) });
  }

  async getReport(runId: string): Promise<unknown | null> {
    const row = await this.em().findOne(ReportEntity, { runId });
    return row ? (JSON.parse(row.report) as unknown) : null;
  }

  private em(): SqlEntityManager {
    return this.orm.em.fork();
  }

  private isUniqueViolation(error: unknown): boolean {
    if (error instanceof UniqueConstraintViolationException) return true;
    return error instanceof Error && this.orm.em.getDriver().convertException(error) instanceof UniqueConstraintViolationException;
  }

  /** A unique violation on create means the id is taken; anything else passes through. */
  private conflictOr(error: unknown, message: string): unknown {
    return this.isUniqueViolation(error) ? new KeelError("KEEL_ERR_STORE_CONFLICT", message, { cause: error }) : error;
  }
}

/** The lease ends with the run: `lease_expires_at` is cleared; owner and epoch stay, for the record. */
function terminalWrite(status: RunRecordStatus, outcome: StatusV2Payload, now: string): Partial<RunRow> {
  return { status, outcome: JSON.stringify(outcome), leaseExpiresAt: null, updatedAt: now };
}

/**
 * The better-sqlite3 `Database` a SQLite store runs on: its one connection (MikroORM's
 * pool holds exactly one), open until `store.close()`. Tables created through it live in
 * the store's file, and a `BEGIN IMMEDIATE` transaction on it can read the store's rows
 * (a run's lease) and write its own in one commit; keep every transaction on it
 * synchronous (see the plugin's README). Throws `KEEL_ERR_STORE_URL_INVALID` for a
 * PostgreSQL store.
 *
 * @example
 * const store = await SqlRunStore.open(parseStoreUrl("sqlite:./.keel/keel.db"));
 * const db = sqliteDatabaseOf(store);
 * db.prepare("select epoch from keel_runs where run_id = ?").get(runId);
 */
export function sqliteDatabaseOf(store: SqlRunStore): SqliteDatabase {
  const db = store.sqliteDatabase();
  if (!db) throw new KeelError("KEEL_ERR_STORE_URL_INVALID", "this run store is on PostgreSQL; only a `sqlite:` store has a better-sqlite3 connection to share");
  return db;
}
