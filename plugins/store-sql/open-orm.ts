/**
 * Opening the MikroORM instance for a store target, with the SQLite connection
 * settings the run service relies on. Driver packages are imported on demand, so a
 * PostgreSQL deployment never loads the SQLite native module and the other way round.
 * SQLite goes through MikroORM's better-sqlite driver (better-sqlite3, synchronous, one
 * connection), whose handle the store also uses directly (sqlite-database.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { MikroORM, type Options } from "@mikro-orm/core";
import type { AbstractSqlDriver, SqlEntityManager } from "@mikro-orm/better-sqlite";
import { importOptional } from "../../kernel/optional-import.js";
import { STORE_ENTITIES } from "./entities.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import { POSTGRES_PACKAGES, SQLITE_MEMORY, type StoreTarget } from "./store-url.js";

export type StoreOrm = MikroORM<AbstractSqlDriver, SqlEntityManager>;

/** How long a SQLite writer waits for another writer's lock before failing (ms). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Runs on every new SQLite connection. WAL lets readers proceed while one writer
 * writes; busy_timeout makes a second writer (another store instance or process on the
 * same file) wait for the lock instead of failing at once.
 */
function configureSqliteConnection(connection: SqliteDatabase, done: (error: Error | null, connection: SqliteDatabase) => void): void {
  try {
    connection.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON;`);
    done(null, connection);
  } catch (error) {
    done(error as Error, connection);
  }
}

const COMMON_OPTIONS = {
  entities: STORE_ENTITIES,
  debug: false,
  // Every operation forks its own EntityManager; the global one is never used for work.
  allowGlobalContext: false,
  discovery: { warnWhenNoEntities: false },
} satisfies Partial<Options>;

export interface OpenedOrm {
  orm: StoreOrm;
  /** SQLite only: the one connection MikroORM's pool holds (min = max = 1). */
  sqlite?: SqliteDatabase;
}

interface KnexClient {
  acquireConnection(): Promise<SqliteDatabase>;
  releaseConnection(connection: SqliteDatabase): Promise<unknown>;
}

/** The pool's connection, borrowed once and given back: with one connection it is the only one there is. */
async function sqliteConnectionOf(orm: StoreOrm): Promise<SqliteDatabase> {
  const client = (orm.em.getConnection().getKnex() as unknown as { client: KnexClient }).client;
  const connection = await client.acquireConnection();
  await client.releaseConnection(connection);
  return connection;
}

/** `poolMax`: PostgreSQL only, the most connections this ORM opens (default: MikroORM's, 10); a small companion store takes few. */
export async function openOrm(target: StoreTarget, options: { poolMax?: number } = {}): Promise<OpenedOrm> {
  if (target.dialect === "postgres") {
    const { PostgreSqlDriver } = await importOptional("@mikro-orm/postgresql", "a PostgreSQL store (`--db postgres://…`)", () => import("@mikro-orm/postgresql"), POSTGRES_PACKAGES);
    const pool = options.poolMax === undefined ? {} : { pool: { min: 0, max: options.poolMax } };
    return { orm: (await MikroORM.init({ ...COMMON_OPTIONS, driver: PostgreSqlDriver, clientUrl: target.url, ...pool })) as unknown as StoreOrm };
  }
  if (target.path !== SQLITE_MEMORY) mkdirSync(dirname(target.path), { recursive: true });
  const { BetterSqliteDriver } = await import("@mikro-orm/better-sqlite");
  const orm = (await MikroORM.init({
    ...COMMON_OPTIONS,
    driver: BetterSqliteDriver,
    dbName: target.path,
    // One connection, never recycled (tarn keeps `min` connections however long idle):
    // `:memory:` would otherwise be one database per connection, and the store and its
    // companions (the checkpointer) share this one handle; in-process callers queue for
    // it, other connections (processes, store instances) meet the file's write lock.
    pool: { min: 1, max: 1, afterCreate: configureSqliteConnection },
  })) as unknown as StoreOrm;
  return { orm, sqlite: await sqliteConnectionOf(orm) };
}

/** `init()` a store just opened (schema created or migrated), closing it again when that fails. */
export async function initOrClose<T extends { init(): Promise<void>; close(): Promise<void> }>(store: T): Promise<T> {
  try {
    await store.init();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
