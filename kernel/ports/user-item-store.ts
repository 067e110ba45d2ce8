/**
 * One owner's view of the item store as LangGraph's `BaseStore` (get / put / delete /
 * search / listNamespaces / batch), what a plugin gets from the `item-store` port: a run
 * sees its user's items, the same ones that user reads over `/store/*`, from any thread.
 * `put` also takes LangGraph's `{ ttl }` (minutes); reads refresh an item's TTL.
 */
import { BaseStore, type Item, type Operation, type OperationResults } from "@langchain/langgraph";
import { KeelError } from "../errors.js";
import { assertNamespace, type ItemStore, type ItemValue, type StoredItem } from "./item-store.js";

export interface UserItemStoreOptions {
  /** ISO-8601 time (the run's clock). */
  now(): string;
}

type PutWithTtl = { namespace: string[]; key: string; value: ItemValue | null; index?: false | string[]; ttlMinutes?: number | null };

export class UserItemStore extends BaseStore {
  constructor(
    private readonly items: ItemStore,
    readonly owner: string,
    private readonly options: UserItemStoreOptions,
  ) {
    super();
  }

  /** LangGraph's `put`, plus `options.ttl`: minutes until the item expires after its last write or read. */
  override async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttl?: number | null }): Promise<void> {
    assertNamespace(namespace, "write");
    if (Array.isArray(index)) throw noIndex("`index` fields");
    await this.items.putItem(this.owner, namespace, key, value, { ttlMinutes: options?.ttl ?? null, now: this.options.now() });
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.apply(op));
    return results as OperationResults<Op>;
  }

  private async apply(op: Operation): Promise<unknown> {
    const now = this.options.now();
    if ("namespacePrefix" in op) {
      if (op.query) throw noIndex("semantic search (`query`)");
      const found = await this.items.searchItems(this.owner, { namespacePrefix: op.namespacePrefix, ...(op.filter ? { filter: op.filter } : {}), limit: op.limit ?? 10, offset: op.offset ?? 0, refreshTtl: true, now });
      return found.map(toLangGraphItem);
    }
    if ("value" in op) {
      const put = op as PutWithTtl;
      if (put.value === null) return this.items.deleteItem(this.owner, put.namespace, put.key);
      if (Array.isArray(put.index)) throw noIndex("`index` fields");
      return this.items.putItem(this.owner, put.namespace, put.key, put.value, { now });
    }
    if ("key" in op) {
      const item = await this.items.getItem(this.owner, op.namespace, op.key, { refreshTtl: true, now });
      return item ? toLangGraphItem(item) : null;
    }
    const prefix = op.matchConditions?.find((c) => c.matchType === "prefix")?.path;
    const suffix = op.matchConditions?.find((c) => c.matchType === "suffix")?.path;
    return this.items.listNamespaces(this.owner, { ...(prefix ? { prefix } : {}), ...(suffix ? { suffix } : {}), ...(op.maxDepth !== undefined ? { maxDepth: op.maxDepth } : {}), limit: op.limit, offset: op.offset, now });
  }
}

function toLangGraphItem(item: StoredItem): Item {
  return { namespace: item.namespace, key: item.key, value: item.value, createdAt: new Date(item.createdAt), updatedAt: new Date(item.updatedAt) };
}

const noIndex = (what: string) => new KeelError("KEEL_ERR_STORE_NO_INDEX", `${what} needs an embeddings index, and Keel's item store has none`);
