import { randomUUID } from "node:crypto";
import type { ThreadRecord } from "../../../kernel/runs/types.js";
import { HttpError } from "../http-errors.js";
import { ThreadCreateBody, ThreadParams, ThreadSearchBody } from "../schemas.js";
import { threadToWire } from "../wire-records.js";
import { threadStateView } from "../thread-state.js";
import { authorizedThread, type GatewayApp, type GatewayContext } from "../context.js";
import { equalityFilters } from "../auth-handler.js";

/** Threads: created by a user, visible only to that user. */
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
        if (existing.owner === request.user && body.if_exists === "do_nothing" && matches(existing.metadata)) return threadToWire(existing);
        throw new HttpError(409, "KEEL_ERR_HTTP_THREAD_EXISTS", `thread \`${threadId}\` already exists`, "/thread_id");
      }
    }
    const now = ctx.now();
    const thread: ThreadRecord = { threadId, owner: request.user, status: "idle", metadata, createdAt: now, updatedAt: now };
    const created = await store.createThread(thread);
    // Its expiry: the body's `ttl` (minutes), else the server's default (the retention sweep purges it once idle that long).
    await ctx.deps.retention?.trackThread(threadId, body.ttl?.ttl);
    return threadToWire(created);
  });

  app.get("/threads/:tid", { schema: { params: ThreadParams } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    return threadToWire(thread, (await threadStateView(ctx, thread.threadId)).values);
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
    const found = await store.searchThreads({
      owner: request.user,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit ?? 10,
      offset: query.offset ?? 0,
    });
    return found.filter((thread) => matches(thread.metadata)).map((thread) => threadToWire(thread));
  });

  app.get("/threads/:tid/state", { schema: { params: ThreadParams } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    return threadStateView(ctx, thread.threadId);
  });
}
