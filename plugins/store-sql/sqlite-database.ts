/**
 * The SQLite store's one better-sqlite3 connection, used directly (synchronously) for the
 * transactions that must be atomic: admission, thread deletion, and, through
 * `sqliteDatabaseOf`, anything else that wants its tables in the same file and its
 * statements in the same transaction as the store's (the checkpointer checking a run's
 * lease). MikroORM runs the other statements on the same connection, one at a time.
 *
 * A synchronous transaction runs start to commit inside one call, so no other statement
 * of this process can land in the middle of it. Another process (or another store on
 * the same file) holding the write lock makes `BEGIN IMMEDIATE` wait up to busy_timeout;
 * that wait blocks the event loop, as every better-sqlite3 call does.
 */

/** The part of better-sqlite3's `Statement` the store uses (the package ships no types). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of better-sqlite3's `Database` the store uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly name: string;
  readonly memory: boolean;
}

const statementCaches = new WeakMap<SqliteDatabase, Map<string, SqliteStatement>>();

/** A prepared statement, prepared once per connection. */
export function prepared(db: SqliteDatabase, sql: string): SqliteStatement {
  let cache = statementCaches.get(db);
  if (!cache) statementCaches.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE … COMMIT` (the write lock taken before anything is
 * read), rolling back when it throws. `work` must be synchronous. When an ORM transaction
 * is open on the connection (it spans awaits; the store issues none, but MikroORM may),
 * this waits for it to end rather than joining it.
 */
export async function immediateTransaction<T>(db: SqliteDatabase, work: () => T): Promise<T> {
  while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
  prepared(db, "begin immediate").run();
  try {
    const result = work();
    prepared(db, "commit").run();
    return result;
  } catch (error) {
    if (db.inTransaction) prepared(db, "rollback").run();
    throw error;
  }
}
