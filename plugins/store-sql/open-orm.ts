/**
 * Opening the MikroORM instance for a store target, with the SQLite connection
 * settings the run service relies on. Driver packages are imported on demand, so a
 * PostgreSQL deployment never loads the SQLite native module and the other way round.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { MikroORM, type Options } from "@mikro-orm/core";
import type { AbstractSqlDriver, SqlEntityManager } from "@mikro-orm/sqlite";
import { importOptional } from "../../kernel/optional-import.js";
import { STORE_ENTITIES } from "./entities.js";
import { POSTGRES_PACKAGES, SQLITE_MEMORY, type StoreTarget } from "./store-url.js";

export type StoreOrm = MikroORM<AbstractSqlDriver, SqlEntityManager>;

/** How long a SQLite writer waits for another writer's lock before failing (ms). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

interface RawSqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/**
 * Runs on every new SQLite connection. WAL lets readers proceed while one writer
 * writes; busy_timeout makes a second writer (another store instance or process on the
 * same file) wait for the lock instead of failing at once.
 */
function configureSqliteConnection(connection: RawSqliteConnection, done: (error: Error | null, connection: RawSqliteConnection) => void): void {
  const pragmas = `PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON;`;
  connection.exec(pragmas, (error) => done(error, connection));
}

const COMMON_OPTIONS = {
  entities: STORE_ENTITIES,
  debug: false,
  // Every operation forks its own EntityManager; the global one is never used for work.
  allowGlobalContext: false,
  discovery: { warnWhenNoEntities: false },
} satisfies Partial<Options>;

export async function openOrm(target: StoreTarget): Promise<StoreOrm> {
  if (target.dialect === "postgres") {
    const { PostgreSqlDriver } = await importOptional("@mikro-orm/postgresql", "a PostgreSQL store (`--db postgres://…`)", () => import("@mikro-orm/postgresql"), POSTGRES_PACKAGES);
    return (await MikroORM.init({ ...COMMON_OPTIONS, driver: PostgreSqlDriver, clientUrl: target.url })) as unknown as StoreOrm;
  }
  if (target.path !== SQLITE_MEMORY) mkdirSync(dirname(target.path), { recursive: true });
  const { SqliteDriver } = await import("@mikro-orm/sqlite");
  return (await MikroORM.init({
    ...COMMON_OPTIONS,
    driver: SqliteDriver,
    dbName: target.path,
    // One connection (knex's default for SQLite, stated because it matters): `:memory:`
    // would otherwise be one database per connection; in-process callers queue for it,
    // other connections (processes, store instances) meet the file's write lock.
    pool: { min: 1, max: 1, afterCreate: configureSqliteConnection },
  })) as unknown as StoreOrm;
}
