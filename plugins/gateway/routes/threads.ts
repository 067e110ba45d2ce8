import { randomUUID } from "node:crypto";
import type { ThreadRecord } from "../../../kernel/runs/types.js";
import { HttpError } from "../http-errors.js";
import { ThreadCreateBody, ThreadParams, ThreadSearchBody } from "../schemas.js";
import { threadToWire } from "../wire-records.js";
import { threadStateView } from "../thread-state.js";
import { ownedThread, type GatewayApp, type GatewayContext } from "../context.js";

/** Threads: created by a user, visible only to that user. */
export function registerThreadRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store, runs } = ctx.deps;

  app.post("/threads", { schema: { body: ThreadCreateBody } }, async (request) => {
    const body = request.body ?? {};
    const threadId = body.thread_id ?? randomUUID();
    if (body.thread_id != null) {
      const existing = await store.getThread(threadId);
      if (existing) {
        if (existing.owner === request.user && body.if_exists === "do_nothing") return threadToWire(existing);
        throw new HttpError(409, "KEEL_ERR_HTTP_THREAD_EXISTS", `thread \`${threadId}\` already exists`, "/thread_id");
      }
    }
    const now = ctx.now();
    const thread: ThreadRecord = { threadId, owner: request.user, status: "idle", metadata: body.metadata ?? {}, createdAt: now, updatedAt: now };
    return threadToWire(await store.createThread(thread));
  });

  app.get("/threads/:tid", { schema: { params: ThreadParams } }, async (request) => {
    const thread = await ownedThread(ctx, request.params.tid, request.user);
    return threadToWire(thread, (await threadStateView(ctx, thread.threadId)).values);
  });

  /**
   * Deleting a thread: from the first write on it reads as missing (404) and admits no run;
   * its runs are cancelled and, once they ended, everything it had is purged. 204 when that
   * took at most `deleteWaitMs` (10 s), else 202 with the purge finishing in the background.
   */
  app.delete("/threads/:tid", { schema: { params: ThreadParams } }, async (request, reply) => {
    const thread = await ownedThread(ctx, request.params.tid, request.user);
    const deletion = await runs.deleteThread(thread.threadId, { user: request.user, waitMs: ctx.deleteWaitMs });
    return reply.code(deletion.finished ? 204 : 202).send();
  });

  app.post("/threads/search", { schema: { body: ThreadSearchBody } }, async (request) => {
    const query = request.body ?? {};
    const found = await store.searchThreads({
      owner: request.user,
      ...(query.metadata ? { metadata: query.metadata } : {}),
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit ?? 10,
      offset: query.offset ?? 0,
    });
    return found.map((thread) => threadToWire(thread));
  });

  app.get("/threads/:tid/state", { schema: { params: ThreadParams } }, async (request) => {
    const thread = await ownedThread(ctx, request.params.tid, request.user);
    return threadStateView(ctx, thread.threadId);
  });
}
