import { isKeelError } from "../../../kernel/errors.js";
import { assertNamespace, isOperatorObject, ITEM_FILTER_OPERATORS, type ItemStore, type StoredItem } from "../../../kernel/ports/item-store.js";
import { MemoryItemStore } from "../../../kernel/runs/memory-item-store.js";
import { HttpError } from "../http-errors.js";
import { isTrue } from "../schemas.js";
import { StoreDeleteBody, StoreGetQuery, StoreNamespacesBody, StorePutBody, StoreSearchBody } from "../schemas-store.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/** How often expired items are removed (reads never return them meanwhile). */
export const STORE_SWEEP_MS = 60_000;

/** LangGraph's wire shape of an item. */
export interface ItemWire {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const toWire = (item: StoredItem): ItemWire => ({ namespace: item.namespace, key: item.key, value: item.value, created_at: item.createdAt, updated_at: item.updatedAt });

/**
 * LangGraph's store API (`client.store.*`): long-term items under namespaces. Every user
 * has a namespace tree of their own (the item store's `owner`): what they put, get,
 * search and list is theirs only, and another user's item under the same namespace and
 * key is, for them, an item that does not exist. Without `deps.items`, items live in memory.
 */
export function registerStoreRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const items: ItemStore = ctx.deps.items ?? new MemoryItemStore();
  const sweep = setInterval(() => {
    items.sweepExpired(ctx.now()).catch((error: unknown) => app.log.error({ err: error }, "store sweep failed"));
  }, STORE_SWEEP_MS);
  sweep.unref();
  app.addHook("onClose", async () => clearInterval(sweep));

  app.put("/store/items", { schema: { body: StorePutBody }}, async (request, reply) => {
    const body = request.body;
    namespaceChecked(body.namespace, "write", "/namespace");
    if (Array.isArray(body.index) && body.index.length > 0) throw noIndex("`index` (fields to embed)", "/index");
    await ctx.authorize(request, "store", "put", { namespace: body.namespace, key: body.key, value: body.value });
    await items.putItem(request.user, body.namespace, body.key, body.value, { ttlMinutes: body.ttl ?? null, now: ctx.now() });
    return reply.code(204).send();
  });

  app.get("/store/items", { schema: { querystring: StoreGetQuery } }, async (request) => {
    const query = request.query;
    const namespace = query.namespace ? query.namespace.split(".") : [];
    namespaceChecked(namespace, "read", "/namespace");
    await ctx.authorize(request, "store", "get", { namespace, key: query.key }, { what: `item \`${query.key}\`` });
    const item = await items.getItem(request.user, namespace, query.key, { refreshTtl: query.refresh_ttl === undefined || isTrue(query.refresh_ttl), now: ctx.now() });
    return item ? toWire(item) : null;
  });

  app.delete("/store/items", { schema: { body: StoreDeleteBody } }, async (request, reply) => {
    const namespace = request.body.namespace ?? [];
    namespaceChecked(namespace, "read", "/namespace");
    await ctx.authorize(request, "store", "delete", { namespace, key: request.body.key }, { what: `item \`${request.body.key}\`` });
    await items.deleteItem(request.user, namespace, request.body.key);
    return reply.code(204).send();
  });

  app.post("/store/items/search", { schema: { body: StoreSearchBody }}, async (request) => {
    const body = request.body;
    namespaceChecked(body.namespace_prefix, "prefix", "/namespace_prefix");
    if (body.query) throw noIndex("`query` (semantic search)", "/query");
    if (body.filter) assertFilter(body.filter);
    await ctx.authorize(request, "store", "search", { namespace: body.namespace_prefix, filter: body.filter ?? null, limit: body.limit ?? 10, offset: body.offset ?? 0 });
    const found = await items.searchItems(request.user, {
      namespacePrefix: body.namespace_prefix,
      ...(body.filter ? { filter: body.filter } : {}),
      limit: body.limit ?? 10,
      offset: body.offset ?? 0,
      refreshTtl: body.refresh_ttl ?? true,
      now: ctx.now(),
    });
    return { items: found.map(toWire) };
  });

  app.post("/store/namespaces", { schema: { body: StoreNamespacesBody }}, async (request) => {
    const body = request.body ?? {};
    if (body.prefix) namespaceChecked(body.prefix, "prefix", "/prefix");
    if (body.suffix) namespaceChecked(body.suffix, "prefix", "/suffix");
    await ctx.authorize(request, "store", "list_namespaces", { namespace: body.prefix ?? [], suffix: body.suffix ?? null, max_depth: body.max_depth ?? null, limit: body.limit ?? 100, offset: body.offset ?? 0 });
    const namespaces = await items.listNamespaces(request.user, {
      ...(body.prefix ? { prefix: body.prefix } : {}),
      ...(body.suffix ? { suffix: body.suffix } : {}),
      ...(body.max_depth != null ? { maxDepth: body.max_depth } : {}),
      limit: body.limit ?? 100,
      offset: body.offset ?? 0,
      now: ctx.now(),
    });
    return { namespaces };
  });
}

/** LangGraph's namespace rule, as a 400 `KEEL_ERR_STORE_NAMESPACE_INVALID` pointing at the label. */
function namespaceChecked(namespace: readonly string[], use: "write" | "read" | "prefix", pointer: string): void {
  try {
    assertNamespace(namespace, use, pointer);
  } catch (error) {
    if (isKeelError(error)) throw new HttpError(400, error.code, error.message, error.pointer);
    throw error;
  }
}

function noIndex(what: string, pointer: string): HttpError {
  return new HttpError(400, "KEEL_ERR_STORE_NO_INDEX", `${what} needs an embeddings index, and this server has none configured; filter with \`filter\` under a \`namespace_prefix\` instead`, pointer);
}

/** Operator objects (`{ "$gt": 3 }`) use LangGraph's operators only; `$in` / `$nin` take a list. */
function assertFilter(filter: Record<string, unknown>): void {
  for (const [field, wanted] of Object.entries(filter)) {
    if (!isOperatorObject(wanted)) continue;
    for (const [op, operand] of Object.entries(wanted)) {
      const pointer = `/filter/${escape(field)}/${escape(op)}`;
      if (!(ITEM_FILTER_OPERATORS as readonly string[]).includes(op)) {
        throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: unknown filter operator (one of ${ITEM_FILTER_OPERATORS.join(", ")})`, pointer);
      }
      if ((op === "$in" || op === "$nin") && !Array.isArray(operand)) {
        throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: \`${op}\` takes a list`, pointer);
      }
    }
  }
}

const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");
