/**
 * The item store (kernel/ports/item-store.ts) in process memory: for tests and for a
 * gateway built without a database. Values are copied in and out (a caller never holds
 * the stored object). Lost when the process exits.
 */
import {
  compareItems,
  expiryOf,
  isLive,
  matchesFilter,
  selectNamespaces,
  underPrefix,
  type ItemStore,
  type ItemValue,
  type ListNamespacesQuery,
  type PutItemOptions,
  type ReadOptions,
  type SearchItemsQuery,
  type StoredItem,
} from "../ports/item-store.js";

interface Entry {
  owner: string;
  item: StoredItem;
  ttlMinutes: number | null;
  expiresAt: string | null;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const slot = (owner: string, namespace: readonly string[], key: string) => JSON.stringify([owner, namespace, key]);

export class MemoryItemStore implements ItemStore {
  private readonly entries = new Map<string, Entry>();

  /** Items held, expired or not (a sweep removes the expired). */
  get size(): number {
    return this.entries.size;
  }

  async putItem(owner: string, namespace: string[], key: string, value: ItemValue, options: PutItemOptions): Promise<void> {
    const at = slot(owner, namespace, key);
    const existing = this.entries.get(at);
    const createdAt = existing && isLive(existing.expiresAt, options.now) ? existing.item.createdAt : options.now;
    const ttlMinutes = options.ttlMinutes ?? null;
    this.entries.set(at, { owner, item: { namespace: [...namespace], key, value: copy(value), createdAt, updatedAt: options.now }, ttlMinutes, expiresAt: expiryOf(options.now, ttlMinutes) });
  }

  async getItem(owner: string, namespace: string[], key: string, options: ReadOptions): Promise<StoredItem | null> {
    const entry = this.entries.get(slot(owner, namespace, key));
    if (!entry || !isLive(entry.expiresAt, options.now)) return null;
    this.refresh(entry, options);
    return copy(entry.item);
  }

  async deleteItem(owner: string, namespace: string[], key: string): Promise<void> {
    this.entries.delete(slot(owner, namespace, key));
  }

  async searchItems(owner: string, query: SearchItemsQuery): Promise<StoredItem[]> {
    const found = this.live(owner, query.now)
      .filter((e) => underPrefix(e.item.namespace, query.namespacePrefix) && matchesFilter(e.item.value, query.filter))
      .sort((a, b) => compareItems(a.item, b.item))
      .slice(query.offset, query.offset + query.limit);
    for (const entry of found) this.refresh(entry, query);
    return found.map((e) => copy(e.item));
  }

  async listNamespaces(owner: string, query: ListNamespacesQuery): Promise<string[][]> {
    return selectNamespaces(
      this.live(owner, query.now).map((e) => e.item.namespace),
      query,
    );
  }

  async sweepExpired(now: string): Promise<number> {
    let removed = 0;
    for (const [at, entry] of this.entries) {
      if (!isLive(entry.expiresAt, now)) {
        this.entries.delete(at);
        removed++;
      }
    }
    return removed;
  }

  private live(owner: string, now: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.owner === owner && isLive(e.expiresAt, now));
  }

  private refresh(entry: Entry, options: ReadOptions): void {
    if (options.refreshTtl && entry.ttlMinutes !== null) entry.expiresAt = expiryOf(options.now, entry.ttlMinutes);
  }
}
