import { randomUUID } from "node:crypto";
import type { ThreadRecord, ThreadSearch } from "../../../kernel/runs/types.js";
import { HttpError } from "../http-errors.js";
import { ThreadParams } from "../schemas.js";
import { THREAD_FIELDS, ThreadCountBody, ThreadCreateBody, ThreadPatchBody, ThreadPruneBody, ThreadSearchBody } from "../schemas-threads.js";
import { metadataMatches, threadToWire } from "../wire-records.js";
import { applySupersteps } from "./threads-state.js";
import { checkpointReader, threadValues, threadValuesAndInterrupts } from "../thread-state.js";
import { authorizedThread, type GatewayApp, type GatewayContext } from "../context.js";
import { equalityFilters } from "../auth-handler.js";

/** How many threads a `values` filter reads per page while it scans the caller's threads. */
const VALUES_SCAN_PAGE = 200;

/** Threads: created by a user, visible only to that user (docs/http.md, "Threads API"). */
export function registerThreadRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store, runs } = ctx.deps;

  app.post("/threads", { schema: { body: ThreadCreateBody } }, async (request) => {
    const body = request.body ?? {};
    const threadId = body.thread_id ?? randomUUID();
    // The auth handler may add metadata (e.g. an owner) to what is stored.
    const { value, matches } = await ctx.authorize(request, "threads", "create", { thread_id: threadId, metadata: { ...(body.metadata ?? {}) }, if_exists: body.if_exists ?? "raise" });
    const metadata = (value.metadata ?? {}) as Record<string, unknown>;
    if (body.thread_id != null) {
      const existing = await store.getThread(threadId);
      if (existing) {
        if (existing.owner === request.user && body.if_exists === "do_nothing" && matches(existing.metadata)) return threadToWire(existing, await threadValues(ctx, existing));
        throw new HttpError(409, "KEEL_ERR_HTTP_THREAD_EXISTS", `thread \`${threadId}\` already exists`, "/thread_id");
      }
    }
    const now = ctx.now();
    const thread: ThreadRecord = { threadId, owner: request.user, status: "idle", metadata, createdAt: now, updatedAt: now };
    // Its expiry: the body's `ttl` (minutes), else the server's default (the retention sweep purges it once idle that long).
    const track = () => ctx.deps.retention?.trackThread(threadId, body.ttl?.ttl);
    if (!body.supersteps?.length) {
      const created = await store.createThread(thread);
      await track();
      return threadToWire(created);
    }
    // Checked before the thread exists: a refused superstep leaves nothing behind.
    const apply = applySupersteps(ctx, thread, body.supersteps);
    const created = await store.createThread(thread);
    await track();
    try {
      await apply();
    } catch (error) {
      await store.deleteThread(threadId);
      await ctx.deps.threadState?.deleteCheckpoints(threadId);
      throw error;
    }
    return threadToWire(created, await threadValues(ctx, created));
  });

  app.get("/threads/:tid", { schema: { params: ThreadParams } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    const { values, interrupts } = await threadValuesAndInterrupts(ctx, thread);
    return threadToWire(thread, values, interrupts);
  });

  /** LangGraph's patch: `metadata` is merged into the thread's (a key set to null stays, with null). */
  app.patch("/threads/:tid", { schema: { params: ThreadParams, body: ThreadPatchBody } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "update", request.params.tid, { metadata: request.body.metadata ?? {} });
    await store.updateThread(thread.threadId, { metadata: { ...thread.metadata, ...request.body.metadata } }, ctx.now());
    const updated = await authorizedThread(ctx, request, "read", thread.threadId);
    return threadToWire(updated, await threadValues(ctx, updated));
  });

  /**
   * Deleting a thread: from the first write on it reads as missing (404) and admits no run;
   * its runs are cancelled and, once they ended, everything it had is purged. 204 when that
   * took at most `deleteWaitMs` (10 s), else 202 with the purge finishing in the background.
   */
  app.delete("/threads/:tid", { schema: { params: ThreadParams } }, async (request, reply) => {
    const thread = await authorizedThread(ctx, request, "delete", request.params.tid);
    const deletion = await runs.deleteThread(thread.threadId, { user: request.user, waitMs: ctx.deleteWaitMs });
    return reply.code(deletion.finished ? 204 : 202).send();
  });

  app.post("/threads/search", { schema: { body: ThreadSearchBody } }, async (request) => {
    const query = request.body ?? {};
    const { filters, matches } = await ctx.authorize(request, "threads", "search", { metadata: query.metadata ?? {}, status: query.status, limit: query.limit ?? 10, offset: query.offset ?? 0 });
    // The handler's equalities narrow the store's search; a `$contains` is checked on the page.
    const metadata = { ...(query.metadata ?? {}), ...equalityFilters(filters) };
    const conflicting = Object.entries(equalityFilters(filters)).some(([key, v]) => query.metadata != null && key in query.metadata && JSON.stringify(query.metadata[key]) !== JSON.stringify(v));
    if (conflicting) return [];
    const search: ThreadSearch = {
      owner: request.user,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.ids?.length ? { ids: query.ids } : {}),
      limit: query.limit ?? 10,
      offset: query.offset ?? 0,
      sortBy: query.sort_by ?? "created_at",
      sortOrder: query.sort_order ?? "desc",
    };
    const select = query.select?.length ? new Set<string>(query.select) : undefined;
    const found = query.values ? await searchByValues(ctx, search, query.values) : await withValues(ctx, await store.searchThreads(search), select === undefined || select.has("values"));
    return found.filter(({ thread }) => matches(thread.metadata)).map(({ thread, values }) => pick(threadToWire(thread, values), select));
  });

  app.post("/threads/count", { schema: { body: ThreadCountBody } }, async (request) => {
    const query = request.body ?? {};
    const filter = { owner: request.user, ...(query.metadata ? { metadata: query.metadata } : {}), ...(query.status ? { status: query.status } : {}) };
    if (!query.values) return store.countThreads(filter);
    return (await searchByValues(ctx, { ...filter, limit: Number.MAX_SAFE_INTEGER, offset: 0 }, query.values)).length;
  });

  /** LangGraph's copy: a new thread of the same owner with the metadata (plus `thread_id`) and every checkpoint. */
  app.post("/threads/:tid/copy", { schema: { params: ThreadParams } }, async (request) => {
    const from = await authorizedThread(ctx, request, "read", request.params.tid);
    const reader = checkpointReader(ctx);
    const threadId = randomUUID();
    const now = ctx.now();
    const copy = await store.createThread({ threadId, owner: request.user, status: "idle", metadata: { ...from.metadata, thread_id: threadId }, createdAt: now, updatedAt: now });
    await reader.copy(from.threadId, threadId);
    return threadToWire(copy, await threadValues(ctx, copy));
  });

  /**
   * `delete`: each thread is deleted as `DELETE /threads/:tid` does (purged); `keep_latest`:
   * its checkpoints but the newest are removed. Ids that are not the caller's threads, and
   * (`keep_latest`) threads with a pending or running run, are skipped and not counted.
   */
  app.post("/threads/prune", { schema: { body: ThreadPruneBody } }, async (request) => {
    const strategy = request.body.strategy ?? "delete";
    const reader = strategy === "keep_latest" ? checkpointReader(ctx) : undefined;
    let pruned = 0;
    for (const id of new Set(request.body.thread_ids)) {
      const thread = await store.getThread(id);
      if (!thread || thread.owner !== request.user) continue;
      if (reader) {
        if ((await store.activeRuns(id)).length > 0) continue;
        await reader.pruneToLatest(id);
      } else {
        await runs.deleteThread(id, { user: request.user, waitMs: ctx.deleteWaitMs });
      }
      pruned += 1;
    }
    return { pruned_count: pruned };
  });
}

interface Found {
  thread: ThreadRecord;
  values: Record<string, unknown>;
}

async function withValues(ctx: GatewayContext, threads: ThreadRecord[], read: boolean): Promise<Found[]> {
  return Promise.all(threads.map(async (thread) => ({ thread, values: read ? await threadValues(ctx, thread) : {} })));
}

/**
 * The page of threads whose values hold every top-level key of `values` with an equal
 * value: the caller's threads matching the other filters are read in order, page by page,
 * and their current state compared (a scan: values live in the checkpoints, not the store).
 */
async function searchByValues(ctx: GatewayContext, search: ThreadSearch, values: Record<string, unknown>): Promise<Found[]> {
  const matched: Found[] = [];
  const want = search.offset + search.limit;
  for (let offset = 0; matched.length < want; offset += VALUES_SCAN_PAGE) {
    const page = await ctx.deps.store.searchThreads({ ...search, limit: VALUES_SCAN_PAGE, offset });
    for (const found of await withValues(ctx, page, true)) {
      if (metadataMatches(found.values, values)) matched.push(found);
    }
    if (page.length < VALUES_SCAN_PAGE) break;
  }
  return matched.slice(search.offset, want);
}

function pick(thread: ReturnType<typeof threadToWire>, select: Set<string> | undefined): Partial<ReturnType<typeof threadToWire>> {
  if (!select) return thread;
  return Object.fromEntries(THREAD_FIELDS.filter((field) => select.has(field)).map((field) => [field, thread[field]]));
}
