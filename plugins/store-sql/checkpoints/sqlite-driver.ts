// better-sqlite3's API as the checkpointer uses it, in its own module so that
// the executor and the WAL checkpoint worker can both name it without importing each other.

/** The part of better-sqlite3's API used here (the package ships no types of its own). */
export interface BetterSqliteStatement {
  /** `changes`: the rows the statement inserted, updated or deleted. */
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}
export interface BetterSqliteDatabase {
  prepare(sql: string): BetterSqliteStatement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): F & { immediate: F };
  close(): unknown;
  readonly open: boolean;
  /** The file's path (`:memory:` or empty for an in-memory or temporary database). */
  readonly name?: string;
  readonly memory?: boolean;
}
