/**
 * The checkpointer's SQL on a better-sqlite3 `Database` handle: the caller's handle (so
 * the run store and the checkpoints can share one file and one connection), used
 * synchronously. A write is one `BEGIN IMMEDIATE` transaction: it takes the file's
 * write lock first, so the lease row read for a fence cannot change before the commit.
 * A handle the executor owns checkpoints its WAL in a worker thread once it has written
 * steadily (`wal-checkpoints.ts`).
 */
import { RUNS_TABLE } from "../entities.js";
import { retryWhileBusy } from "../sqlite-busy.js";
import {
  NO_RUN_STORE,
  type CheckpointWrite,
  type LeaseRow,
  type PendingWritesWrite,
  type SqlExecutor,
  type SqlParam,
  type SqlRow,
  type SqlStatement,
  type WriteBatch,
  type WriteJudge,
  type WriteReads,
} from "./sql-executor.js";
import type { BetterSqliteDatabase, BetterSqliteStatement } from "./sqlite-driver.js";
import { walCheckpointWorker } from "./wal-checkpoints.js";
import { checkpointBatch, pendingWritesBatch } from "./write-statements.js";

export type { BetterSqliteDatabase, BetterSqliteStatement } from "./sqlite-driver.js";

export interface SqliteExecutorOptions {
  /**
   * After this many write transactions, an owned file handle's WAL is checkpointed by a
   * worker thread instead of inside commits (`wal-checkpoints.ts`); default 256.
   * `Infinity`: never (every checkpoint inline, as SQLite does by default).
   */
  backgroundCheckpointsAfter?: number;
}

/** Writes before an owned handle's WAL checkpoints move to the worker. */
export const DEFAULT_BACKGROUND_CHECKPOINTS_AFTER = 256;

const LEASE_SELECT = `SELECT epoch, status, lease_expires_at FROM ${RUNS_TABLE} WHERE run_id = ?`;

const toDriver = (params: readonly SqlParam[]): unknown[] => params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));

export class SqliteExecutor implements SqlExecutor {
  readonly dialect = "sqlite" as const;
  private readonly statements = new Map<string, BetterSqliteStatement>();
  private readonly apply: (batch: WriteBatch, check: (reads: WriteReads) => void) => void;
  /** Write transactions until the WAL's checkpoints move to the worker (owned file handles only). */
  private writesBeforeBackground: number;
  private releaseWal: (() => Promise<void>) | undefined;
  private runsTableSeen = false;

  /** `ownsHandle`: close the handle with the executor (a handle opened by the factory, not a shared one). */
  constructor(
    readonly db: BetterSqliteDatabase,
    private readonly ownsHandle = false,
    options: SqliteExecutorOptions = {},
  ) {
    const after = options.backgroundCheckpointsAfter ?? DEFAULT_BACKGROUND_CHECKPOINTS_AFTER;
    this.writesBeforeBackground = ownsHandle && db.memory !== true && db.name && db.name !== ":memory:" ? after : Infinity;
    this.apply = db.transaction((batch: WriteBatch, check: (reads: WriteReads) => void) => {
      const lease = batch.fence ? this.lease(batch.fence.runId) : undefined;
      const guard = batch.guard ? this.prepared(batch.guard.sql).get(...toDriver(batch.guard.params)) !== undefined : true;
      check({ lease, guard });
      this.run(batch.statements);
    }).immediate;
  }

  all(sql: string, params: readonly SqlParam[]): SqlRow[] {
    return this.prepared(sql).all(...toDriver(params)) as SqlRow[];
  }

  /** Synchronous unless the file's write lock is still taken after busy_timeout: then retried (sqlite-busy.ts) and a promise. */
  write(batch: WriteBatch, check: (reads: WriteReads) => void): void | Promise<void> {
    if (--this.writesBeforeBackground <= 0) this.checkpointInBackground();
    return retryWhileBusy(() => this.apply(batch, check));
  }

  /** Hands the WAL's checkpoints to the worker (a WAL-mode file only; inline if the worker is unavailable). */
  private checkpointInBackground(): void {
    this.writesBeforeBackground = Infinity;
    if (String(this.db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") return;
    this.releaseWal = walCheckpointWorker.watch(this.db, this.db.name!);
  }

  /** One `BEGIN IMMEDIATE` transaction (`write-statements.ts`), judged inside it. */
  putCheckpoint(write: CheckpointWrite, judge: WriteJudge): void | Promise<void> {
    return this.write(checkpointBatch(write), (reads) => judge.check(reads));
  }

  putPendingWrites(write: PendingWritesWrite, judge: WriteJudge): void | Promise<void> {
    return this.write(pendingWritesBatch(write), (reads) => judge.check(reads));
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** The worker lets go of the file first, so the handle closes last (checkpointing and removing the log, as SQLite does). */
  async close(): Promise<void> {
    this.statements.clear();
    this.writesBeforeBackground = Infinity;
    await this.releaseWal?.();
    this.releaseWal = undefined;
    if (this.ownsHandle && this.db.open) this.db.close();
  }

  private run(statements: readonly SqlStatement[]): void {
    for (const s of statements) {
      const { changes } = this.prepared(s.sql).run(...toDriver(s.params));
      if (s.otherwise && changes === 0) this.run(s.otherwise);
    }
  }

  private lease(runId: string): LeaseRow | undefined | typeof NO_RUN_STORE {
    // The run store's table, once seen, is taken to stay (looked up again should it be gone).
    if (!this.runsTableSeen) {
      if (this.prepared(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(RUNS_TABLE) === undefined) return NO_RUN_STORE;
      this.runsTableSeen = true;
    }
    let row: { epoch: number; status: string; lease_expires_at: string | null } | undefined;
    try {
      row = this.prepared(LEASE_SELECT).get(runId) as typeof row;
    } catch (error) {
      if (!/no such table/i.test(String((error as Error).message))) throw error;
      this.runsTableSeen = false;
      this.statements.delete(LEASE_SELECT);
      return this.lease(runId);
    }
    return row && { epoch: Number(row.epoch), status: row.status, leaseExpiresAt: row.lease_expires_at };
  }

  private prepared(sql: string): BetterSqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
