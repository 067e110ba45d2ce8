import { initOrClose } from "./open-orm.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { SqlRunStore } from "./sql-run-store.js";
import { DEFAULT_STORE_URL, parseStoreUrl } from "./store-url.js";

/**
 * A RunStore on SQLite or PostgreSQL, connected and with its schema created or migrated
 * (so `init()` has nothing left to do). Throws `KEEL_ERR_STORE_URL_INVALID` for a URL of
 * another kind, and the driver's error when the database cannot be reached.
 *
 * @example
 * const store = await createSqlRunStore("sqlite:./.keel/keel.db");
 * const pg = await createSqlRunStore("postgres://keel:keel@127.0.0.1:5432/keel");
 */
export async function createSqlRunStore(url: string = DEFAULT_STORE_URL): Promise<RunStore> {
  return initOrClose(await SqlRunStore.open(parseStoreUrl(url)));
}
