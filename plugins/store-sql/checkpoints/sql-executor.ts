/**
 * The small SQL surface the checkpointer needs, implemented once per dialect
 * (`sqlite-executor.ts` on a better-sqlite3 handle, `postgres-executor.ts` on a `pg` Pool).
 * Statements are written with `?` placeholders; the PostgreSQL adapter numbers them.
 * Reads may be served synchronously (better-sqlite3) or not; callers always await.
 */
export type SqlDialect = "sqlite" | "postgres";

/** A write's lease fence (`configurable.keel_fence`, see `fence.ts`). */
export interface LeaseFence {
  runId: string;
  epoch: number;
  /** The lease holder's clock (ms), so expiry is judged on the clock the lease was granted by; default the saver's. */
  now?: () => number;
}
export type SqlParam = string | number | null | Uint8Array;
export type SqlRow = Record<string, unknown>;

export interface SqlStatement {
  sql: string;
  params: readonly SqlParam[];
  /** Run next, in the same transaction, only when this statement changed no row (an insert that met its key: update what is there instead). */
  otherwise?: readonly SqlStatement[];
}

/** Statements applied together: all or nothing, after the fence and the guard (when given) were read in the same transaction. */
export interface WriteBatch {
  fence?: LeaseFence;
  /** A read that must find a row for the write to go ahead (e.g. the parent a delta is based on). */
  guard?: SqlStatement;
  statements: readonly SqlStatement[];
}

/** What a write's transaction read before writing: the fence's lease row and whether the guard found a row. */
export interface WriteReads {
  /** The lease row; undefined: no such run; NO_RUN_STORE: this database holds no run store (`keel_runs`), so nothing to check against. */
  lease: LeaseRow | undefined | typeof NO_RUN_STORE;
  guard: boolean;
}

/** The lease read of a database without the run store's tables (a saver beside another store). */
export const NO_RUN_STORE = "no-run-store";

/** What the lease row said when a fence was checked; the saver decides whether it holds. */
export interface LeaseRow {
  epoch: number;
  status: string;
  leaseExpiresAt: string | null;
}

/** One checkpoint's header row (`keel_ckpt_checkpoints`). */
export interface CheckpointRow {
  threadId: string;
  ns: string;
  checkpointId: string;
  parentId: string | null;
  snapshotId: string;
  depth: number;
  type: string;
  header: Uint8Array;
  metadata: Uint8Array;
}

/** One changed channel of a checkpoint (`keel_ckpt_values`): `set`, `splice` or `unset`. */
export interface ValueRow {
  channel: string;
  op: "set" | "splice" | "unset";
  from: number | null;
  keep: number | null;
  type: string | null;
  value: Uint8Array | null;
}

/** A `put`: the header, the changed channels (replacing any rows the checkpoint had) and, for a delta, the base it was computed against. */
export interface CheckpointWrite {
  fence?: LeaseFence;
  /** The parent the delta is based on: it must still be in the database with this snapshot id, or nothing is written (the guard). */
  base?: { checkpointId: string; snapshotId: string };
  checkpoint: CheckpointRow;
  values: readonly ValueRow[];
  /**
   * Pending writes of the step that produced this checkpoint (on its parent), committed in
   * the same transaction: the saver holds a `putWrites` until its step's `put` comes (the
   * same macrotask), so a step costs one commit, not two. Same fence as the checkpoint.
   */
  pendingWrites?: readonly PendingWritesWrite[];
}

/** One pending write (`keel_ckpt_writes`); `special` (errors, interrupts, …: a negative `idx`) replaces, an ordinary one is written once. */
export interface PendingWriteRow {
  idx: number;
  channel: string;
  type: string;
  value: Uint8Array;
  special: boolean;
}

/** A `putWrites`: one task's writes on one checkpoint, in order. */
export interface PendingWritesWrite {
  fence?: LeaseFence;
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  rows: readonly PendingWriteRow[];
}

/**
 * How the saver judges a write. `check` throws to refuse (the lease no longer held, the
 * guard's row gone) given what the transaction read: called inside the transaction, or —
 * where the database decides within the write's one statement (PostgreSQL) — after a
 * write it refused, to say why. `rule` is the lease rule as data for that statement.
 */
export interface WriteJudge {
  check(reads: WriteReads): void;
  /** The lease holder's clock now (ISO-8601, compared as text with `lease_expires_at`) and whether refusals are enforced (false under the test-only switch). */
  rule(): { nowIso: string; enforce: boolean };
}

export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Rows of one read. */
  all(sql: string, params: readonly SqlParam[]): SqlRow[] | Promise<SqlRow[]>;
  /**
   * One transaction: reads the fence's lease row (locking it against a concurrent claim;
   * undefined: no such run or no run table) and runs the guard, calls `check` with what
   * it read, which throws to refuse, then runs the statements. Nothing is written when
   * `check` throws.
   */
  write(batch: WriteBatch, check: (reads: WriteReads) => void): void | Promise<void>;
  /** A `put`'s rows: one transaction (SQLite) or one statement (PostgreSQL), judged as `write` judges. */
  putCheckpoint(write: CheckpointWrite, judge: WriteJudge): void | Promise<void>;
  /** A `putWrites`' rows, likewise. */
  putPendingWrites(write: PendingWritesWrite, judge: WriteJudge): void | Promise<void>;
  /** DDL, run once at start (several statements separated by `;`). */
  exec(sql: string): void | Promise<void>;
  close(): void | Promise<void>;
}

/** Byte columns come back as Buffer (both drivers); text columns as string. */
export function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === "string") return new TextEncoder().encode(value);
  throw new TypeError(`expected a byte column, got ${typeof value}`);
}
