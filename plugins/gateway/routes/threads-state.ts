import type { ThreadRecord } from "../../../kernel/runs/types.js";
import { isKeelError } from "../../../kernel/errors.js";
import { WORKSPACE_NOT_RESTORED } from "../../../kernel/runs/checkpoint-fork.js";
import { HttpError, notFound } from "../http-errors.js";
import { isTrue, ThreadParams } from "../schemas.js";
import {
  HistoryBody,
  HistoryQuery,
  StateAtCheckpointBody,
  StateAtCheckpointParams,
  StatePatchBody,
  StateQuery,
  StateUpdateBody,
  type CheckpointAddress,
  type ThreadCreateBody,
} from "../schemas-threads.js";
import type { StateUpdate } from "../thread-checkpoints.js";
import { assertNoActiveRun, checkedValues, checkpointReader, threadStack, threadStateView } from "../thread-state.js";
import { authorizedThread, type GatewayApp, type GatewayContext } from "../context.js";

/** A thread's state and history: read at the head or a checkpoint, written as a node would (docs/http.md, "Threads API"). */
export function registerThreadStateRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.get("/threads/:tid/state", { schema: { params: ThreadParams, querystring: StateQuery } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    return threadStateView(ctx, thread, { subgraphs: isTrue(request.query.subgraphs) });
  });

  app.get("/threads/:tid/state/:cid", { schema: { params: StateAtCheckpointParams, querystring: StateQuery } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    return stateAt(ctx, thread, request.params.cid, isTrue(request.query.subgraphs));
  });

  app.post("/threads/:tid/state/checkpoint", { schema: { params: ThreadParams, body: StateAtCheckpointBody } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    const checkpointId = addressedCheckpoint(request.body.checkpoint, "/checkpoint");
    const subgraphs = isTrue(request.body.subgraphs ?? undefined);
    return checkpointId ? stateAt(ctx, thread, checkpointId, subgraphs) : threadStateView(ctx, thread, { subgraphs });
  });

  /** LangGraph's update: `values` written as node `as_node` (inferred when absent), from the head or from `checkpoint_id` (a fork). */
  app.post("/threads/:tid/state", { schema: { params: ThreadParams, body: StateUpdateBody } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "update", request.params.tid);
    const body = request.body;
    refuseCommand(body.command, "/command");
    const reader = checkpointReader(ctx);
    const stack = await threadStack(ctx, thread);
    const values = checkedValues(reader, stack, body.values, "/values");
    const checkpointId = addressedCheckpoint(body.checkpoint, "/checkpoint") ?? body.checkpoint_id ?? undefined;
    if (checkpointId && !(await reader.hasCheckpoint(thread.threadId, checkpointId))) throw notFound(`checkpoint \`${checkpointId}\` of thread \`${thread.threadId}\``);
    await assertNoActiveRun(ctx, thread.threadId);
    // A fork (an update at a checkpoint older than the head) does not rewind the thread's files: said in the answer.
    const forksWorkspace = checkpointId !== undefined && reader.hasWorkspace(stack) && (await reader.headId(thread.threadId)) !== checkpointId;
    const update: StateUpdate = { values, ...(body.as_node ? { asNode: body.as_node } : {}) };
    const checkpoint = await asBadRequest(() => reader.update(thread.threadId, stack, [[update]], checkpointId), "/as_node", "/values");
    await ctx.deps.store.updateThread(thread.threadId, {}, ctx.now());
    return { checkpoint, ...(forksWorkspace ? WORKSPACE_NOT_RESTORED : {}) };
  });

  /** The SDK's `patchState`: `metadata` merged into the thread's (Keel does not edit a written checkpoint); 204. */
  app.patch("/threads/:tid/state", { schema: { params: ThreadParams, body: StatePatchBody } }, async (request, reply) => {
    const thread = await authorizedThread(ctx, request, "update", request.params.tid);
    await ctx.deps.store.updateThread(thread.threadId, { metadata: { ...thread.metadata, ...request.body.metadata } }, ctx.now());
    return reply.code(204).send();
  });

  app.get("/threads/:tid/history", { schema: { params: ThreadParams, querystring: HistoryQuery } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    const reader = checkpointReader(ctx);
    return reader.history(thread.threadId, await threadStack(ctx, thread), { limit: request.query.limit ?? 10, ...(request.query.before ? { before: request.query.before } : {}) });
  });

  app.post("/threads/:tid/history", { schema: { params: ThreadParams, body: HistoryBody } }, async (request) => {
    const thread = await authorizedThread(ctx, request, "read", request.params.tid);
    const reader = checkpointReader(ctx);
    const body = request.body ?? {};
    const before = typeof body.before === "string" ? body.before : body.before?.configurable.checkpoint_id;
    const checkpointId = addressedCheckpoint(body.checkpoint, "/checkpoint");
    return reader.history(thread.threadId, await threadStack(ctx, thread), {
      limit: body.limit ?? 10,
      ...(before ? { before } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}),
      ...(checkpointId ? { checkpointId } : {}),
    });
  });
}

/**
 * `supersteps` of `POST /threads`, checked now (every value against the stack's writable
 * channels, no `command`), applied by the returned function once the thread exists: each
 * superstep's updates as LangGraph's `bulkUpdateState` applies them.
 */
export function applySupersteps(ctx: GatewayContext, thread: ThreadRecord, supersteps: NonNullable<NonNullable<ThreadCreateBody>["supersteps"]>): () => Promise<void> {
  const reader = checkpointReader(ctx);
  const graphId = thread.metadata.graph_id;
  if (graphId !== undefined && (typeof graphId !== "string" || !reader.stacks.includes(graphId))) {
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `\`metadata.graph_id\` ${JSON.stringify(graphId)} is not a served stack (${reader.stacks.join(", ")}): the supersteps cannot be applied`, "/metadata/graph_id");
  }
  const stack = typeof graphId === "string" ? graphId : reader.stacks[0]!;
  const steps = supersteps.map((step, i) =>
    step.updates.map((update, j): StateUpdate => {
      const at = `/supersteps/${i}/updates/${j}`;
      refuseCommand(update.command, `${at}/command`);
      return { values: checkedValues(reader, stack, update.values, `${at}/values`), asNode: update.as_node };
    }),
  );
  return async () => {
    await asBadRequest(() => reader.update(thread.threadId, stack, steps), "/supersteps", "/supersteps");
  };
}

async function stateAt(ctx: GatewayContext, thread: ThreadRecord, checkpointId: string, subgraphs: boolean) {
  const state = await threadStateView(ctx, thread, { checkpointId, subgraphs });
  if (!state) throw notFound(`checkpoint \`${checkpointId}\` of thread \`${thread.threadId}\``);
  return state;
}

/** The checkpoint id of a `checkpoint` address; Keel's threads have only the root namespace. */
function addressedCheckpoint(address: CheckpointAddress | null | undefined, pointer: string): string | undefined {
  if (!address) return undefined;
  if (address.checkpoint_ns) {
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "Keel's threads have one checkpoint namespace (`\"\"`): a child agent's state lives in its own checkpoint thread", `${pointer}/checkpoint_ns`);
  }
  return address.checkpoint_id ?? undefined;
}

/** Commands (`goto`, `resume`) are the human-in-the-loop protocol, not supported yet: refused, never ignored. */
function refuseCommand(command: unknown, pointer: string): void {
  if (command === undefined || command === null) return;
  throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "`command` is not supported on thread state writes (Keel's loop has no interrupts yet); send `values` with `as_node`", pointer);
}

/** LangGraph's refusals of an update (`InvalidUpdateError`: an unknown or ambiguous node) and a reducer's are the client's: 400. */
async function asBadRequest<T>(write: () => Promise<T>, nodePointer: string, valuesPointer: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Error && error.name === "InvalidUpdateError") throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", error.message, nodePointer);
    if (isKeelError(error) && error.code === "KEEL_ERR_CHANNEL_REDUCER") throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", error.message, valuesPointer);
    throw error;
  }
}
