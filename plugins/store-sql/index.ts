import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunStore } from "../../kernel/runs/types.js";
import { closeCheckpointer, createCheckpointerNow, createSharedPostgresCheckpointer } from "./checkpointer.js";
import { deferredRunStore } from "./deferred-run-store.js";
import { deferredItemStore } from "./deferred-item-store.js";
import { SqlItemStore } from "./sql-item-store.js";
import { storeSqlManifest } from "./manifest.js";
import { DEFAULT_STORE_URL, parseStoreUrl } from "./store-url.js";
import { SharedDatabase } from "./shared-database.js";
import { SqlRunStore } from "./sql-run-store.js";
import { initOrClose } from "./open-orm.js";

const urlOf = (config: Readonly<Record<string, unknown>>): string => (typeof config.url === "string" ? config.url : DEFAULT_STORE_URL);

const databases = new WeakMap<object, Promise<SharedDatabase>>();

/**
 * The one connection (pool) of a composed store-sql's config: its `store` and `item-store`
 * ports, and the companion stores a host opens on it (`SqlCronStore.open(db)`,
 * `SqlAssistantStore.open(db)`), share it and its one schema diff (README, "One connection
 * pool"). Opened on first use; a closed one (every holder released it) is opened anew.
 */
export function storeSqlDatabase(config: Readonly<Record<string, unknown>>): Promise<SharedDatabase> {
  const known = databases.get(config);
  if (known) {
    const reopen = known.then((db) => (db.closed ? undefined : db)).catch(() => undefined);
    return reopen.then((db) => db ?? openFor(config));
  }
  return openFor(config);
}

function openFor(config: Readonly<Record<string, unknown>>): Promise<SharedDatabase> {
  const opened = SharedDatabase.open(parseStoreUrl(urlOf(config)));
  databases.set(config, opened);
  return opened;
}

/**
 * The `store` and `checkpointer` ports on SQLite or PostgreSQL. The kernel builds ports
 * synchronously, so both are returned at once and wait internally for their database;
 * a host fails fast by awaiting `store.init()` (and one checkpointer read) at start, as
 * `keel serve` does. Both ports have `close()`.
 *
 * @example
 * { "plugins": ["store-sql"], "config": { "store-sql": { "url": "postgres://keel:keel@127.0.0.1:5432/keel" } } }
 */
export const storeSqlPlugin = definePlugin({
  manifest: storeSqlManifest,
  services: {
    // The run store and the long-term items (`/store/*`, plugins' memory across threads) share one connection pool.
    store: (config): RunStore => deferredRunStore(storeSqlDatabase(config).then((db) => initOrClose(SqlRunStore.on(db)))),
    "item-store": (config) => deferredItemStore(storeSqlDatabase(config).then((db) => SqlItemStore.open(db))),
    // On PostgreSQL the checkpointer shares that pool too; on SQLite it keeps its own handle on the file (README, "One connection pool").
    checkpointer: (config): BaseCheckpointSaver => {
      const url = urlOf(config);
      const options = typeof config.snapshotEvery === "number" ? { snapshotEvery: config.snapshotEvery } : {};
      if (parseStoreUrl(url).dialect === "postgres") return createSharedPostgresCheckpointer(storeSqlDatabase(config), url, options);
      return closeable(createCheckpointerNow(url, options));
    },
  },
});

/** Ports a host closes when it stops carry `close()`; the SQLite saver has none of its own. */
function closeable(saver: BaseCheckpointSaver): BaseCheckpointSaver & { close(): Promise<void> } {
  const own = (saver as { close?: unknown }).close;
  if (typeof own === "function") return saver as BaseCheckpointSaver & { close(): Promise<void> };
  return Object.assign(saver, { close: () => closeCheckpointer(saver) });
}

export default storeSqlPlugin;

export { closeCheckpointer, createCheckpointer, createCheckpointerNow, createSharedPostgresCheckpointer, migrateStockPostgres, migrateStockSqlite, openSqliteHandle, type CheckpointerOptions, type KeelCheckpointer } from "./checkpointer.js";
export { DEFAULT_SNAPSHOT_EVERY, KeelCheckpointSaver, type KeelCheckpointSaverOptions } from "./checkpoints/keel-saver.js";
export { FENCE_KEY, type LeaseFence } from "./checkpoints/fence.js";
export { PostgresExecutor, type PgPool } from "./checkpoints/postgres-executor.js";
export { SqliteExecutor, type BetterSqliteDatabase } from "./checkpoints/sqlite-executor.js";
export type { SqlExecutor } from "./checkpoints/sql-executor.js";
export { createSqlRunStore } from "./create-sql-run-store.js";
export { deferredRunStore } from "./deferred-run-store.js";
export { deferredItemStore } from "./deferred-item-store.js";
export { SqlItemStore } from "./sql-item-store.js";
export { storeSqlConfigSchema, storeSqlManifest } from "./manifest.js";
export { SqlRunStore, sqliteDatabaseOf } from "./sql-run-store.js";
export type { SqliteDatabase, SqliteStatement } from "./sqlite-database.js";
export { stockCheckpointsPathFor, DEFAULT_STORE_URL, parseStoreUrl, type StoreTarget } from "./store-url.js";
export { SqlCronStore } from "./cron-sql.js";
export { SharedDatabase } from "./shared-database.js";
export { SqlAssistantStore } from "./sql-assistant-store.js";
