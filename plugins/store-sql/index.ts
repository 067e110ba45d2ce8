import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunStore } from "../../kernel/runs/types.js";
import { createCheckpointerNow } from "./checkpointer.js";
import { createSqlRunStore } from "./create-sql-run-store.js";
import { deferredRunStore } from "./deferred-run-store.js";
import { storeSqlManifest } from "./manifest.js";
import { DEFAULT_STORE_URL } from "./store-url.js";

const urlOf = (config: Readonly<Record<string, unknown>>): string => (typeof config.url === "string" ? config.url : DEFAULT_STORE_URL);

/**
 * The `store` and `checkpointer` ports on SQLite or PostgreSQL. The kernel builds ports
 * synchronously, so both are returned at once and wait internally for their database;
 * a server that can await at start should call `createSqlRunStore(url)` and
 * `createCheckpointer(url)` directly, so that a bad URL or an unreachable database fails
 * the start instead of the first call.
 *
 * @example
 * { "plugins": ["store-sql"], "config": { "store-sql": { "url": "postgres://keel:keel@127.0.0.1:5432/keel" } } }
 */
export const storeSqlPlugin = definePlugin({
  manifest: storeSqlManifest,
  services: {
    store: (config): RunStore => deferredRunStore(createSqlRunStore(urlOf(config))),
    checkpointer: (config): BaseCheckpointSaver => createCheckpointerNow(urlOf(config)),
  },
});

export default storeSqlPlugin;

export { closeCheckpointer, createCheckpointer, createCheckpointerNow, type KeelCheckpointer } from "./checkpointer.js";
export { createSqlRunStore } from "./create-sql-run-store.js";
export { deferredRunStore } from "./deferred-run-store.js";
export { storeSqlConfigSchema, storeSqlManifest } from "./manifest.js";
export { SqlRunStore } from "./sql-run-store.js";
export { checkpointsPathFor, DEFAULT_STORE_URL, parseStoreUrl, type StoreTarget } from "./store-url.js";
