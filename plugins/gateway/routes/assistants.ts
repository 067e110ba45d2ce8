import { assistantComparator, assistantMatches } from "../../../kernel/assistants/assistant-order.js";
import type { AssistantFilter, AssistantRecord } from "../../../kernel/assistants/types.js";
import { isKeelError } from "../../../kernel/errors.js";
import {
  assistantStoreOf,
  checkAssistantOptions,
  newAssistantId,
  ownedUserAssistant,
  servedStackOf,
  systemAssistant,
  visibleAssistant,
} from "../assistant-registry.js";
import { HttpError, notFound } from "../http-errors.js";
import { isTrue } from "../schemas.js";
import {
  AssistantCountBody,
  AssistantCreateBody,
  AssistantDeleteQuery,
  AssistantIdParams,
  AssistantLatestBody,
  AssistantPatchBody,
  AssistantSearchBody,
  AssistantVersionsBody,
} from "../schemas-assistants.js";
import { assistantToWire, assistantVersionToWire } from "../wire-records.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/**
 * Assistants (docs/http.md, "Assistants API"): every served stack is a system
 * assistant (read-only); a user assistant is a stack plus options, versioned, visible
 * only to its creator.
 */
export function registerAssistantRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const store = () => assistantStoreOf(ctx);
  const systemMatching = (filter: Omit<AssistantFilter, "owner">) => ctx.stacks.map((stack) => systemAssistant(ctx, stack)).filter((a) => assistantMatches(a, filter));
  const filterOf = (body: { graph_id?: string | null; name?: string | null; metadata?: Record<string, unknown> | null } | null, user: string): AssistantFilter => ({
    owner: user,
    ...(body?.graph_id != null ? { graphId: body.graph_id } : {}),
    ...(body?.name != null ? { name: body.name } : {}),
    ...(body?.metadata != null ? { metadata: body.metadata } : {}),
  });

  app.post("/assistants", { schema: { body: AssistantCreateBody } }, async (request) => {
    const body = request.body;
    const ifExists = body.if_exists ?? "raise";
    const id = body.assistant_id ?? newAssistantId();
    const stack = servedStackOf(ctx, id);
    if (stack) {
      if (ifExists === "do_nothing") return assistantToWire(systemAssistant(ctx, stack));
      throw exists(id);
    }
    const existing = body.assistant_id != null ? await store().getAssistant(id) : null;
    if (existing) {
      if (existing.owner === request.user && ifExists === "do_nothing") return assistantToWire(existing);
      throw exists(id);
    }
    const context = (body.context ?? {}) as Record<string, unknown>;
    checkAssistantOptions(ctx, body.graph_id, context, { graph: "/graph_id", context: "/context" });
    const now = ctx.now();
    const record: AssistantRecord = {
      assistantId: id,
      graphId: body.graph_id,
      // LangGraph's defaults: no name is "Untitled", an empty one the graph id.
      name: body.name == null ? "Untitled" : body.name || body.graph_id,
      description: body.description ?? null,
      config: (body.config ?? {}) as Record<string, unknown>,
      context,
      metadata: body.metadata ?? {},
      version: 1,
      owner: request.user,
      createdAt: now,
      updatedAt: now,
    };
    try {
      return assistantToWire(await store().createAssistant(record));
    } catch (error) {
      if (isKeelError(error) && error.code === "KEEL_ERR_STORE_CONFLICT") throw exists(id);
      throw error;
    }
  });

  app.get("/assistants/:aid", { schema: { params: AssistantIdParams } }, async (request) => {
    const what = `assistant \`${request.params.aid}\``;
    const auth = await ctx.authorize(request, "assistants", "read", { assistant_id: request.params.aid }, { what });
    const found = await visibleAssistant(ctx, request.params.aid, request.user);
    if (!auth.matches(found.metadata)) throw notFound(what);
    return assistantToWire(found);
  });

  app.patch("/assistants/:aid", { schema: { params: AssistantIdParams, body: AssistantPatchBody } }, async (request) => {
    const current = await ownedUserAssistant(ctx, request.params.aid, request.user);
    const body = request.body ?? {};
    const graphId = body.graph_id ?? current.graphId;
    const context = (body.context ?? current.context) as Record<string, unknown>;
    if (body.graph_id != null || body.context != null) checkAssistantOptions(ctx, graphId, context, { graph: "/graph_id", context: body.context != null ? "/context" : "/graph_id" });
    const updated = await store().updateAssistant(
      current.assistantId,
      {
        ...(body.graph_id != null ? { graphId: body.graph_id } : {}),
        ...(body.name != null ? { name: body.name } : {}),
        ...(body.description != null ? { description: body.description } : {}),
        ...(body.config != null ? { config: body.config as Record<string, unknown> } : {}),
        ...(body.context != null ? { context } : {}),
        ...(body.metadata != null ? { metadata: body.metadata } : {}),
      },
      ctx.now(),
    );
    if (!updated) throw notFound(`assistant \`${request.params.aid}\``);
    return assistantToWire(updated);
  });

  /** Answers `[assistant_id]` as LangGraph's JS server does; `delete_threads=true` also deletes the caller's threads whose `metadata.assistant_id` is this one. */
  app.delete("/assistants/:aid", { schema: { params: AssistantIdParams, querystring: AssistantDeleteQuery } }, async (request) => {
    const assistant = await ownedUserAssistant(ctx, request.params.aid, request.user);
    if (isTrue(request.query.delete_threads)) await deleteThreadsOf(ctx, assistant.assistantId, request.user);
    if (!(await store().deleteAssistant(assistant.assistantId))) throw notFound(`assistant \`${request.params.aid}\``);
    return [assistant.assistantId];
  });

  app.post("/assistants/search", { schema: { body: AssistantSearchBody } }, async (request, reply) => {
    const body = request.body ?? {};
    const auth = await ctx.authorize(request, "assistants", "search", { graph_id: body.graph_id, metadata: body.metadata ?? {}, limit: body.limit ?? 10, offset: body.offset ?? 0 });
    const filter = filterOf(body, request.user);
    const sortBy = body.sort_by ?? "created_at";
    const sortOrder = body.sort_order ?? "desc";
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    // The page of the union is within the first offset + limit of each part. The sort is
    // stable and ties keep their order: system assistants first, in the served order, then
    // the stored ones as the store sorted them (ties by id).
    const stored = await store().searchAssistants({ ...filter, sortBy, sortOrder, limit: offset + limit, offset: 0 });
    const page = [...systemMatching(filter), ...stored].sort(assistantComparator(sortBy, sortOrder, { tieById: false })).slice(offset, offset + limit);
    const total = systemMatching(filter).length + (await store().countAssistants(filter));
    reply.header("x-pagination-total", String(total));
    if (offset + page.length < total) reply.header("x-pagination-next", String(offset + page.length));
    const select = body.select;
    return page.filter((assistant) => auth.matches(assistant.metadata)).map((assistant) => {
      const wire = assistantToWire(assistant);
      return select ? Object.fromEntries(Object.entries(wire).filter(([key]) => (select as string[]).includes(key))) : wire;
    });
  });

  app.post("/assistants/count", { schema: { body: AssistantCountBody } }, async (request) => {
    const filter = filterOf(request.body, request.user);
    return systemMatching(filter).length + (await store().countAssistants(filter));
  });

  app.post("/assistants/:aid/versions", { schema: { params: AssistantIdParams, body: AssistantVersionsBody } }, async (request) => {
    const assistant = await visibleAssistant(ctx, request.params.aid, request.user);
    const body = request.body ?? {};
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    const versions =
      assistant.owner === "system" && servedStackOf(ctx, request.params.aid)
        ? [assistant].filter((a) => assistantMatches(a, body.metadata != null ? { metadata: body.metadata } : {})).slice(offset, offset + limit)
        : await store().listVersions(assistant.assistantId, { ...(body.metadata != null ? { metadata: body.metadata } : {}), limit, offset });
    return versions.map((version) => assistantVersionToWire(version));
  });

  app.post("/assistants/:aid/latest", { schema: { params: AssistantIdParams, body: AssistantLatestBody } }, async (request) => {
    const assistant = await ownedUserAssistant(ctx, request.params.aid, request.user);
    const updated = await store().setLatestVersion(assistant.assistantId, request.body.version, ctx.now());
    if (!updated) throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", `version ${request.body.version} of assistant \`${assistant.assistantId}\` not found`, "/version");
    return assistantToWire(updated);
  });
}

function exists(id: string): HttpError {
  return new HttpError(409, "KEEL_ERR_HTTP_ASSISTANT_EXISTS", `assistant \`${id}\` already exists`, "/assistant_id");
}

/** The caller's threads whose `metadata.assistant_id` is `assistantId`, deleted one by one (each purge as `DELETE /threads/:tid`). */
async function deleteThreadsOf(ctx: GatewayContext, assistantId: string, user: string): Promise<void> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ctx.deps.store.searchThreads({ owner: user, metadata: { assistant_id: assistantId }, limit: 100, offset });
    ids.push(...page.map((thread) => thread.threadId));
    if (page.length < 100) break;
  }
  for (const threadId of ids) {
    try {
      await ctx.deps.runs.deleteThread(threadId, { user, waitMs: ctx.deleteWaitMs });
    } catch (error) {
      // Deleted meanwhile by another request: nothing left to do for it.
      if (!(isKeelError(error) && error.code === "KEEL_ERR_THREAD_NOT_FOUND")) throw error;
    }
  }
}
