/**
 * The `item-store` port: LangGraph's long-term memory store (namespaced JSON items that
 * outlive a thread), the persistence behind the gateway's `/store/*` routes and what
 * plugins read and write across threads (`userItemStore`, a LangGraph `BaseStore`).
 *
 * Every item belongs to an owner (the user the request or run acts as): an owner sees
 * only its own namespace tree, so two users may use the same namespace without meeting.
 * Times are ISO-8601 strings from the caller's clock, so TTLs are testable without
 * waiting. Implementations: `MemoryItemStore` (kernel/runs/memory-item-store.ts) and the
 * store-sql plugin's `SqlItemStore` (SQLite, PostgreSQL). Both share the rules below.
 *
 * Named `item-store`, not `store`: `store` is the run store's port (threads, runs, journal).
 */
import { KeelError } from "../errors.js";

export const ITEM_STORE_PORT = "item-store";

export type ItemValue = Record<string, unknown>;

export interface StoredItem {
  namespace: string[];
  key: string;
  value: ItemValue;
  createdAt: string;
  updatedAt: string;
}

export interface PutItemOptions {
  /** Minutes until the item expires after its last write (or refreshed read); null/absent: never. */
  ttlMinutes?: number | null;
  now: string;
}

export interface ReadOptions {
  /** Push the expiry of each returned item that has a TTL to `now + ttl` (LangGraph's `refresh_ttl`). */
  refreshTtl: boolean;
  now: string;
}

export interface SearchItemsQuery extends ReadOptions {
  namespacePrefix: string[];
  /** Top-level fields of the value: a value (JSON equality) or operators (`ITEM_FILTER_OPERATORS`). */
  filter?: Record<string, unknown>;
  limit: number;
  offset: number;
}

export interface ListNamespacesQuery {
  /** Labels the namespace starts with; `*` matches any one label. */
  prefix?: string[];
  /** Labels the namespace ends with; `*` matches any one label. */
  suffix?: string[];
  /** Namespaces are cut to this many labels (then deduplicated). */
  maxDepth?: number;
  limit: number;
  offset: number;
  now: string;
}

/**
 * Search answers items newest write first (`updatedAt` descending, then namespace and
 * key); namespaces come sorted by their labels. Expired items are never returned and
 * their namespaces not listed, whether or not a sweep removed them yet.
 */
export interface ItemStore {
  putItem(owner: string, namespace: string[], key: string, value: ItemValue, options: PutItemOptions): Promise<void>;
  getItem(owner: string, namespace: string[], key: string, options: ReadOptions): Promise<StoredItem | null>;
  /** Deleting a missing item is not an error. */
  deleteItem(owner: string, namespace: string[], key: string): Promise<void>;
  searchItems(owner: string, query: SearchItemsQuery): Promise<StoredItem[]>;
  listNamespaces(owner: string, query: ListNamespacesQuery): Promise<string[][]>;
  /** Remove every item expired at `now`; answers how many. */
  sweepExpired(now: string): Promise<number>;
  close?(): Promise<void>;
}

/** LangGraph's namespace rule (`validateNamespace` of @langchain/langgraph-checkpoint). */
export function assertNamespace(namespace: readonly string[], use: "write" | "read" | "prefix", pointer = ""): void {
  if (namespace.length === 0 && use === "write") throw invalid("a namespace needs at least one label", pointer);
  namespace.forEach((label, i) => {
    if (label === "" || /[.:\0]/.test(label)) {
      throw invalid(`namespace label ${JSON.stringify(label)} is empty or contains \`.\`, \`:\` or NUL`, `${pointer}/${i}`);
    }
  });
  if (use === "write" && namespace[0] === "langgraph") throw invalid("the namespace root `langgraph` is reserved", `${pointer}/0`);
}

function invalid(message: string, pointer: string): KeelError {
  return new KeelError("KEEL_ERR_STORE_NAMESPACE_INVALID", message, { pointer });
}

export const ITEM_FILTER_OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"] as const;

/** Whether `value` (an item's value) passes `filter`: every field equal, or every operator of it true. */
export function matchesFilter(value: ItemValue, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, wanted]) => {
    const actual = Object.hasOwn(value, field) ? value[field] : undefined;
    if (!isOperatorObject(wanted)) return jsonEqual(actual, wanted);
    return Object.entries(wanted).every(([op, operand]) => applyOperator(op, actual, operand));
  });
}

/** An object whose keys all start with `$` is a set of operators (LangGraph's rule). */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}

function applyOperator(op: string, actual: unknown, operand: unknown): boolean {
  switch (op) {
    case "$eq":
      return jsonEqual(actual, operand);
    case "$ne":
      return !jsonEqual(actual, operand);
    case "$gt":
      return compare(actual, operand) > 0;
    case "$gte":
      return compare(actual, operand) >= 0;
    case "$lt":
      return compare(actual, operand) < 0;
    case "$lte":
      return compare(actual, operand) <= 0;
    case "$in":
      return Array.isArray(operand) && operand.some((o) => jsonEqual(actual, o));
    case "$nin":
      return Array.isArray(operand) && !operand.some((o) => jsonEqual(actual, o));
    default:
      return false;
  }
}

/** Numbers with numbers, strings with strings; anything else never compares (NaN: every comparison false). */
function compare(actual: unknown, operand: unknown): number {
  if (typeof actual === "number" && typeof operand === "number") return actual - operand;
  if (typeof actual === "string" && typeof operand === "string") return actual < operand ? -1 : actual > operand ? 1 : 0;
  return Number.NaN;
}

/** Deep JSON equality (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => jsonEqual(v, other[i]));
  }
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** `path` matches the start (prefix) or the end (suffix) of `namespace`, `*` matching any label. */
export function namespaceMatches(namespace: readonly string[], path: readonly string[] | undefined, at: "prefix" | "suffix"): boolean {
  if (!path || path.length === 0) return true;
  if (path.length > namespace.length) return false;
  const start = at === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === "*" || label === namespace[start + i]);
}

/** Whether `namespace` lies under `prefix` (exact labels). */
export function underPrefix(namespace: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= namespace.length && prefix.every((label, i) => namespace[i] === label);
}

/** The list-namespaces answer from every namespace holding a live item: matched, cut to `maxDepth`, deduplicated, sorted, paged. */
export function selectNamespaces(all: Iterable<readonly string[]>, query: ListNamespacesQuery): string[][] {
  const seen = new Map<string, string[]>();
  for (const namespace of all) {
    if (!namespaceMatches(namespace, query.prefix, "prefix") || !namespaceMatches(namespace, query.suffix, "suffix")) continue;
    const cut = query.maxDepth === undefined ? [...namespace] : namespace.slice(0, query.maxDepth);
    seen.set(JSON.stringify(cut), cut);
  }
  return [...seen.values()].sort(compareNamespaces).slice(query.offset, query.offset + query.limit);
}

/** Label by label (code units), a shorter namespace before its extensions. */
export function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

/** Search order: newest write first, then namespace, then key. */
export function compareItems(a: StoredItem, b: StoredItem): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return compareNamespaces(a.namespace, b.namespace) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** The expiry of an item written or refreshed at `now` with `ttlMinutes` (null: none). */
export function expiryOf(now: string, ttlMinutes: number | null | undefined): string | null {
  if (ttlMinutes === null || ttlMinutes === undefined) return null;
  return new Date(Date.parse(now) + ttlMinutes * 60_000).toISOString();
}

export const isLive = (expiresAt: string | null | undefined, now: string): boolean => expiresAt === null || expiresAt === undefined || expiresAt > now;
