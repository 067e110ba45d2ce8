/**
 * The checkpointer for a store URL: Keel's delta checkpointer (`checkpoints/keel-saver.ts`)
 * with its tables (`keel_ckpt_*`) in the run store's own database — the store's SQLite
 * file, or the store's PostgreSQL database. A stock LangGraph checkpoint store found
 * there (SqliteSaver's `checkpoints.db` beside a store file named `keel.db`, PostgresSaver's tables) is
 * migrated once, before the saver serves its first call.
 *
 * PostgreSQL needs the optional peers (`pg` comes with them), imported only for a
 * PostgreSQL URL.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { importOptional } from "../../kernel/optional-import.js";
import { KeelCheckpointSaver, type KeelCheckpointSaverOptions } from "./checkpoints/keel-saver.js";
import { migrateStockCheckpoints, type StockCheckpointId } from "./checkpoints/migrate-stock.js";
import { PostgresExecutor, type PgPool } from "./checkpoints/postgres-executor.js";
import { sharedPgPool } from "./checkpoints/shared-pg-pool.js";
import type { SharedDatabase } from "./shared-database.js";
import { SqliteExecutor, type BetterSqliteDatabase } from "./checkpoints/sqlite-executor.js";
import { SQLITE_BUSY_TIMEOUT_MS } from "./open-orm.js";
import { stockCheckpointsPathFor, DEFAULT_STORE_URL, parseStoreUrl, POSTGRES_PACKAGES, SQLITE_MEMORY } from "./store-url.js";

export type KeelCheckpointer = KeelCheckpointSaver;
export type CheckpointerOptions = Pick<KeelCheckpointSaverOptions, "snapshotEvery">;

const requireHere = createRequire(import.meta.url);

/**
 * A better-sqlite3 handle on the store's file, as the checkpointer wants it: WAL (readers
 * beside one writer), `busy_timeout` (a second connection waits for the lock) and
 * `synchronous = NORMAL`, with which a commit in WAL mode survives the process being
 * killed (a power loss may lose the last commits).
 */
export function openSqliteHandle(path: string): BetterSqliteDatabase {
  if (path !== SQLITE_MEMORY) mkdirSync(dirname(path), { recursive: true });
  const Database = requireHere("better-sqlite3") as new (path: string) => BetterSqliteDatabase;
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  db.pragma("synchronous = NORMAL");
  return db;
}

/**
 * SQLite: the saver on its own handle on the store's file (the run store holds another
 * connection to the same file; a host that has the store's better-sqlite3 handle passes
 * it to `new KeelCheckpointSaver(new SqliteExecutor(handle))` instead).
 */
function openSqliteSaver(storePath: string, options: CheckpointerOptions): KeelCheckpointSaver {
  const legacy = stockCheckpointsPathFor(storePath);
  const saver = new KeelCheckpointSaver(new SqliteExecutor(openSqliteHandle(storePath), true), options);
  if (legacy !== undefined) saver.whenReady(() => migrateStockSqlite(legacy, saver).then(() => undefined));
  return saver;
}

/** Imports SqliteSaver's `checkpoints.db` (once; see `checkpoints/migrate-stock.ts`). Returns how many checkpoints were imported. */
export async function migrateStockSqlite(legacyPath: string, saver: KeelCheckpointSaver): Promise<number> {
  const marker = `migrated:sqlite:${resolve(legacyPath)}`;
  if ((await saver.readMeta(marker)) !== undefined) return 0;
  const Database = requireHere("better-sqlite3") as new (path: string) => BetterSqliteDatabase;
  const db = new Database(legacyPath);
  try {
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get() !== undefined;
    if (!hasTable) return 0;
    const ids = (db.prepare(`SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id`).all() as Array<Record<string, string>>).map(toId);
    return await migrateStockCheckpoints(new SqliteSaver(db as never), ids, saver, marker);
  } finally {
    db.close();
  }
}

async function loadPg(): Promise<{ Pool: new (options: Record<string, unknown>) => PgPool }> {
  // The stock saver is needed to read a store it wrote; it brings `pg` with it.
  await importOptional("@langchain/langgraph-checkpoint-postgres", "a PostgreSQL checkpointer (`--db postgres://…`)", () => import("@langchain/langgraph-checkpoint-postgres"), POSTGRES_PACKAGES);
  const pg = (await importOptional("pg", "a PostgreSQL checkpointer (`--db postgres://…`)", () => import("pg" as string), POSTGRES_PACKAGES)) as { default?: unknown; Pool?: unknown };
  return (pg.Pool ? pg : pg.default) as { Pool: new (options: Record<string, unknown>) => PgPool };
}

/**
 * PostgreSQL: the saver on its own pool on the store's database; every call waits until
 * the tables exist and a stock PostgresSaver store there is migrated. Pool errors (a
 * dropped idle connection) are absorbed: the next query gets a fresh connection.
 */
function openPostgresSaver(url: string, options: CheckpointerOptions): KeelCheckpointSaver {
  const pool = loadPg().then(({ Pool }) => {
    const created = new Pool({ connectionString: url });
    created.on("error", () => undefined);
    return created;
  });
  const saver = new KeelCheckpointSaver(new PostgresExecutor(pool, true), options);
  saver.whenReady(() => migrateStockPostgres(url, saver).then(() => undefined));
  return saver;
}

/**
 * PostgreSQL on the run store's shared database (`storeSqlDatabase(config)`): the saver's
 * queries use that database's pool, and its `close()` releases the share it acquired. A stock
 * PostgresSaver store found there is migrated first (on a short-lived pool of its own, once).
 */
export function createSharedPostgresCheckpointer(database: Promise<SharedDatabase>, url: string, options: CheckpointerOptions = {}): KeelCheckpointSaver {
  const pool = database.then((db) => sharedPgPool(db.acquire()));
  const saver = new KeelCheckpointSaver(new PostgresExecutor(pool, true), options);
  saver.whenReady(() => migrateStockPostgres(url, saver).then(() => undefined));
  return saver;
}

/** Imports PostgresSaver's tables of the database (once). Returns how many checkpoints were imported. */
export async function migrateStockPostgres(url: string, saver: KeelCheckpointSaver, schema = "public"): Promise<number> {
  const marker = `migrated:postgres:${schema}`;
  if ((await saver.readMeta(marker)) !== undefined) return 0;
  const found = await saver.executor.all(`SELECT to_regclass(?) IS NOT NULL AND to_regclass(?) IS NOT NULL AS present`, [`${schema}.checkpoints`, `${schema}.checkpoint_blobs`]);
  if (found[0]?.present !== true) return 0;
  const rows = await saver.executor.all(`SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${schema}.checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id`, []);
  const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
  // A pool of our own with an `error` listener: a connection dropped while idle must not crash the process.
  const { Pool } = await loadPg();
  const pool = new Pool({ connectionString: url });
  pool.on("error", () => undefined);
  const stock = new PostgresSaver(pool as never, undefined, { schema });
  try {
    return await migrateStockCheckpoints(stock, (rows as Array<Record<string, string>>).map(toId), saver, marker);
  } finally {
    await pool.end();
  }
}

const toId = (row: Record<string, string>): StockCheckpointId => ({ threadId: row.thread_id!, ns: row.checkpoint_ns ?? "", checkpointId: row.checkpoint_id! });

/**
 * The checkpointer for a store URL, with its tables created and any stock store migrated.
 *
 * @example
 * const checkpointer = await createCheckpointer("sqlite:./.keel/keel.db"); // tables keel_ckpt_* in keel.db
 * graph.compile({ checkpointer });
 * await closeCheckpointer(checkpointer);
 */
export async function createCheckpointer(url: string = DEFAULT_STORE_URL, options: CheckpointerOptions = {}): Promise<KeelCheckpointer> {
  const saver = createCheckpointerNow(url, options);
  try {
    await saver.setup();
  } catch (error) {
    await saver.close().catch(() => undefined);
    throw error;
  }
  return saver;
}

/**
 * The same, usable at once: for port factories, which the kernel calls synchronously.
 * Every call waits for the tables (and a migration) first.
 */
export function createCheckpointerNow(url: string = DEFAULT_STORE_URL, options: CheckpointerOptions = {}): KeelCheckpointer {
  const target = parseStoreUrl(url);
  if (target.dialect === "sqlite") return openSqliteSaver(target.path, options);
  return openPostgresSaver(target.url, options);
}

/** Releases the saver's database handle or connection pool. */
export async function closeCheckpointer(saver: BaseCheckpointSaver): Promise<void> {
  if (saver instanceof KeelCheckpointSaver) await saver.close();
  else if (saver instanceof SqliteSaver) saver.db.close();
  else if (hasClose(saver)) await saver.close();
  else if (hasEnd(saver)) await saver.end();
}

function hasClose(saver: BaseCheckpointSaver): saver is BaseCheckpointSaver & { close(): Promise<void> } {
  return typeof (saver as { close?: unknown }).close === "function";
}

/** PostgresSaver (its pool closes with `end()`), recognised without importing its optional package. */
function hasEnd(saver: BaseCheckpointSaver): saver is BaseCheckpointSaver & { end(): Promise<void> } {
  return typeof (saver as { end?: unknown }).end === "function";
}
