/**
 * The long-term item store (kernel/ports/item-store.ts) on SQLite or PostgreSQL, in
 * `keel_store_items` (item-entity.ts), through MikroORM with the same statements on both
 * dialects. It opens its own connection (pool) to the store URL's database and creates
 * or migrates the schema as the run store does (migrate-schema.ts).
 *
 * The database selects the owner's live rows under the namespace prefix (a string prefix
 * of `ns_path`); the filter, the order and the page are then applied in process, with the
 * rules the memory store uses (`matchesFilter`, `compareItems`, `selectNamespaces`), so
 * both answer alike. A search therefore reads all of the caller's items under its prefix.
 */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import {
  compareItems,
  expiryOf,
  matchesFilter,
  selectNamespaces,
  type ItemStore,
  type ItemValue,
  type ListNamespacesQuery,
  type PutItemOptions,
  type ReadOptions,
  type SearchItemsQuery,
  type StoredItem,
} from "../../kernel/ports/item-store.js";
import { ITEMS_TABLE } from "./item-entity.js";
import { initOrClose, type StoreOrm } from "./open-orm.js";
import { SharedDatabase } from "./shared-database.js";
import { retryMethodsWhileBusy } from "./sqlite-busy.js";
import { reportUnreachable } from "./store-unavailable.js";
import { DEFAULT_STORE_URL, parseStoreUrl } from "./store-url.js";

interface RawItem {
  ns_path: string;
  item_key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | string | null;
}

const pathOf = (namespace: readonly string[]): string => namespace.map((label) => `${label}.`).join("");
const namespaceOf = (path: string): string[] => path.split(".").slice(0, -1);
const LIVE = "(expires_at is null or expires_at > ?)";
const COLUMNS = "ns_path, item_key, value, created_at, updated_at, ttl_minutes";

const UPSERT =
  `insert into ${ITEMS_TABLE} (owner, ns_path, item_key, value, created_at, updated_at, ttl_minutes, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?) ` +
  `on conflict (owner, ns_path, item_key) do update set value = excluded.value, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at, ` +
  // An expired row that no sweep removed yet is a new item: it gets a new creation time.
  `created_at = case when ${ITEMS_TABLE}.expires_at is not null and ${ITEMS_TABLE}.expires_at <= excluded.updated_at then excluded.created_at else ${ITEMS_TABLE}.created_at end`;

const ITEM_METHODS = ["putItem", "getItem", "deleteItem", "searchItems", "listNamespaces", "sweepExpired"] as const satisfies readonly (keyof SqlItemStore)[];

export class SqlItemStore implements ItemStore {
  private readonly orm: StoreOrm;
  private released: Promise<void> | undefined;

  private constructor(private readonly db: SharedDatabase) {
    db.acquire();
    this.orm = db.orm;
    // As the run store: SQLite retries a call that met another connection's write lock; PostgreSQL reports a lost connection as KEEL_ERR_STORE_UNAVAILABLE.
    if (db.dialect === "sqlite") retryMethodsWhileBusy(this as SqlItemStore, ITEM_METHODS);
    else reportUnreachable(this as SqlItemStore, ITEM_METHODS);
  }

  /**
   * Connected, with the schema created or migrated. Given a `SharedDatabase` (the run
   * store's), uses that connection and its one schema diff instead of its own.
   */
  static async open(url: string | SharedDatabase = DEFAULT_STORE_URL): Promise<SqlItemStore> {
    const db = url instanceof SharedDatabase ? url : await SharedDatabase.open(parseStoreUrl(url));
    return initOrClose(new SqlItemStore(db));
  }

  init(): Promise<void> {
    return this.db.migrate();
  }

  /** Releases the connection (closed with its last holder). Idempotent. */
  close(): Promise<void> {
    this.released ??= this.db.release();
    return this.released;
  }

  async putItem(owner: string, namespace: string[], key: string, value: ItemValue, options: PutItemOptions): Promise<void> {
    const ttl = options.ttlMinutes ?? null;
    await this.em().execute(UPSERT, [owner, pathOf(namespace), key, JSON.stringify(value), options.now, options.now, ttl, expiryOf(options.now, ttl)], "run");
  }

  async getItem(owner: string, namespace: string[], key: string, options: ReadOptions): Promise<StoredItem | null> {
    const em = this.em();
    const rows = await em.execute<RawItem[]>(`select ${COLUMNS} from ${ITEMS_TABLE} where owner = ? and ns_path = ? and item_key = ? and ${LIVE}`, [owner, pathOf(namespace), key, options.now], "all");
    const row = rows[0];
    if (!row) return null;
    await this.refresh(em, owner, [row], options);
    return toItem(row);
  }

  async deleteItem(owner: string, namespace: string[], key: string): Promise<void> {
    await this.em().execute(`delete from ${ITEMS_TABLE} where owner = ? and ns_path = ? and item_key = ?`, [owner, pathOf(namespace), key], "run");
  }

  async searchItems(owner: string, query: SearchItemsQuery): Promise<StoredItem[]> {
    const em = this.em();
    const prefix = pathOf(query.namespacePrefix);
    const underPrefix = prefix === "" ? "" : " and substr(ns_path, 1, ?) = ?";
    const params: unknown[] = [owner, query.now, ...(prefix === "" ? [] : [[...prefix].length, prefix])];
    const rows = await em.execute<RawItem[]>(`select ${COLUMNS} from ${ITEMS_TABLE} where owner = ? and ${LIVE}${underPrefix}`, params, "all");
    const page = rows
      .map((row) => ({ row, item: toItem(row) }))
      .filter(({ item }) => matchesFilter(item.value, query.filter))
      .sort((a, b) => compareItems(a.item, b.item))
      .slice(query.offset, query.offset + query.limit);
    await this.refresh(
      em,
      owner,
      page.map((p) => p.row),
      query,
    );
    return page.map((p) => p.item);
  }

  async listNamespaces(owner: string, query: ListNamespacesQuery): Promise<string[][]> {
    const rows = await this.em().execute<{ ns_path: string }[]>(`select distinct ns_path from ${ITEMS_TABLE} where owner = ? and ${LIVE}`, [owner, query.now], "all");
    return selectNamespaces(
      rows.map((r) => namespaceOf(r.ns_path)),
      query,
    );
  }

  async sweepExpired(now: string): Promise<number> {
    const result = await this.em().execute<{ affectedRows?: number }>(`delete from ${ITEMS_TABLE} where expires_at is not null and expires_at <= ?`, [now], "run");
    return Number(result.affectedRows ?? 0);
  }

  private async refresh(em: SqlEntityManager, owner: string, rows: readonly RawItem[], options: ReadOptions): Promise<void> {
    if (!options.refreshTtl) return;
    for (const row of rows) {
      if (row.ttl_minutes === null) continue;
      const expiresAt = expiryOf(options.now, Number(row.ttl_minutes));
      await em.execute(`update ${ITEMS_TABLE} set expires_at = ? where owner = ? and ns_path = ? and item_key = ?`, [expiresAt, owner, row.ns_path, row.item_key], "run");
    }
  }

  private em(): SqlEntityManager {
    return this.orm.em.fork() as SqlEntityManager;
  }
}

function toItem(row: RawItem): StoredItem {
  return { namespace: namespaceOf(row.ns_path), key: row.item_key, value: JSON.parse(row.value) as ItemValue, createdAt: row.created_at, updatedAt: row.updated_at };
}
