import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { isKeelError } from "../../kernel/errors.js";
import type { RunRecord, RunRequest, ThreadRecord } from "../../kernel/runs/types.js";
import type { AssistantRecord } from "../../kernel/assistants/types.js";
import { applyAssistant, visibleAssistant } from "./assistant-registry.js";
import { HttpError, notFound } from "./http-errors.js";
import type { RunCreateBody as BasicRunCreateBody } from "./schemas.js";
import type { RunCreateBody } from "./schemas-runs.js";
import { dueAtOf, refuseUnsupportedFields, requestedCheckpoint, requestedCommand, requestedInterrupts, requestedMaxTurns, unsupported } from "./run-fields.js";
import { authorizedThread, ownedThread, type GatewayContext } from "./context.js";
import { assistantStamps, runMetadata, stampThread } from "./run-metadata.js";

/** Either schema's body: the thread routes' (schemas-runs.ts) or the older subset (schemas.ts). */
type AnyRunCreateBody = RunCreateBody | BasicRunCreateBody;

/**
 * The body of a run-creation request in Keel's terms. Where a caller may ask for a turn
 * limit (`context.max_turns`, `config.configurable.max_turns`, or LangGraph's
 * `config.recursion_limit` mapped to turns), the run service clamps it to the server
 * maximum; hygiene (`__` keys, receipt metadata) is the run service's too, so every
 * entry point gets it.
 */
export function toRunRequest(body: AnyRunCreateBody): RunRequest {
  const streamMode = body.stream_mode == null ? undefined : Array.isArray(body.stream_mode) ? [...body.stream_mode] : [body.stream_mode];
  const maxTurns = requestedMaxTurns(body);
  const full = body as RunCreateBody;
  const command = requestedCommand(full);
  return {
    ...requestedInterrupts(full),
    ...(command ? { command } : {}),
    assistantId: body.assistant_id,
    input: body.input ?? null,
    ...(body.config ? { config: body.config } : {}),
    ...(body.context ? { context: body.context } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(streamMode ? { streamMode } : {}),
    ...("stream_subgraphs" in body && body.stream_subgraphs === true ? { streamSubgraphs: true } : {}),
    onDisconnect: body.on_disconnect ?? "cancel",
    ...(maxTurns !== undefined ? { maxTurns } : {}),
  };
}

/**
 * The body's checks that need no store, on a body the assistant was applied to
 * (`applyAssistant`: 404 for an unknown assistant, its options checked): unsupported
 * fields (400 naming the field), the turn limit, the webhook's host. Returns the run request.
 */
export function checkRunBody(ctx: GatewayContext, body: RunCreateBody): RunRequest {
  refuseUnsupportedFields(body);
  const runRequest = toRunRequest(body);
  ctx.webhooks?.check(body.webhook);
  return runRequest;
}

/** What an admission does besides the run itself. */
export interface AdmitOptions {
  /** A missing thread is created for the caller (`if_not_exists: "create"`, threadless runs). */
  createMissing?: boolean;
}

/**
 * Check the fields, the thread's ownership and the assistant, then hand the run to the run
 * service, which persists it before anyone can see it (and answers 409/429/503 as coded
 * errors). `after_seconds` becomes the run's due time: it stays `pending` until then.
 */
export async function admitRun(ctx: GatewayContext, request: FastifyRequest, threadId: string, body: AnyRunCreateBody, options: AdmitOptions = {}): Promise<RunRecord> {
  // The auth handler sees the run as LangGraph's `threads:create_run` and may add metadata.
  const value = { assistant_id: body.assistant_id, metadata: { ...(body.metadata ?? {}) }, multitask_strategy: body.multitask_strategy ?? "reject", kwargs: { input: body.input ?? null, config: body.config ?? {}, context: body.context ?? {} } };
  const createMissing = options.createMissing || (body as RunCreateBody).if_not_exists === "create";
  const existing = createMissing ? await ctx.deps.store.getThread(threadId) : undefined;
  // A thread this run creates is checked as the run's thread once it exists (below); an existing one now.
  if (!createMissing || existing) await authorizedThread(ctx, request, "create_run", threadId, value);
  else await ctx.authorize(request, "threads", "create_run", { thread_id: threadId, ...value }, { what: `thread \`${threadId}\``, refusal: 404 });
  if (Object.keys(value.metadata).length > 0) body = { ...body, metadata: value.metadata };
  const full = (await applyAssistant(ctx, request.user, body as never)) as RunCreateBody;
  const runRequest = checkRunBody(ctx, full);
  const assistant = await visibleAssistant(ctx, full.assistant_id, request.user);
  const created = createMissing ? await threadForRun(ctx, threadId, request.user, body, assistant) : false;
  const dueAt = dueAtOf(full.after_seconds, Date.parse(ctx.now()));
  const fork = requestedCheckpoint(full, threadId);
  try {
    if (fork) runRequest.checkpointId = await forkPoint(ctx, threadId, fork);
    // LangGraph's stamps (run-metadata.ts): the run's metadata now, the thread's once admitted.
    const before = created ? null : await ctx.deps.store.getThread(threadId);
    runRequest.metadata = runMetadata(assistant, before, runRequest.metadata);
    // The run service checks ownership again and owns the per-user limit, request hygiene
    // and the multitask strategy, so every entry point gets them.
    const run = await ctx.deps.runs.createOrReject(threadId, runRequest, { user: request.user, strategy: body.multitask_strategy ?? "reject", ...(dueAt ? { dueAt } : {}) });
    if (before) await stampThread(ctx, before, assistant);
    // A run is activity: the thread's expiry moves (thread TTL).
    if (created) await ctx.deps.retention?.trackThread(threadId);
    await ctx.deps.retention?.touch(threadId);
    return run;
  } catch (error) {
    // A refused admission leaves nothing behind: not even the thread made for it.
    if (created) await ctx.deps.store.deleteThread(threadId).catch(() => undefined);
    throw error;
  }
}

/**
 * Make sure the caller has thread `threadId`, creating it when missing (true: created here) (as LangGraph does for
 * `if_not_exists: "create"` and threadless runs: metadata `graph_id`, `assistant_id` plus
 * the run's metadata). Another user's thread is a 404, as always.
 */
async function threadForRun(ctx: GatewayContext, threadId: string, user: string, body: AnyRunCreateBody, assistant: AssistantRecord): Promise<boolean> {
  const existing = await ctx.deps.store.getThread(threadId);
  if (existing) {
    if (existing.owner !== user) throw notFound(`thread \`${threadId}\``);
    return false;
  }
  const now = ctx.now();
  const thread: ThreadRecord = {
    threadId,
    owner: user,
    status: "idle",
    metadata: { ...assistantStamps(assistant), ...(body.metadata ?? {}) },
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.deps.store.createThread(thread);
    return true;
  } catch (error) {
    // Created meanwhile by someone else (or a deleted thread's id still being purged): not the caller's.
    if (isKeelError(error) && error.code === "KEEL_ERR_STORE_CONFLICT") return (await ownedThread(ctx, threadId, user), false);
    throw error;
  }
}

/**
 * A fork point the executor can run from: a checkpoint of the thread's that is missing is a
 * 404 (`pointer` the field); one with pending writes of a step that has not finished (no later
 * checkpoint is its child: still running, or stopped mid-step), or an executor that cannot fork, a 400
 * `KEEL_ERR_HTTP_UNSUPPORTED_FIELD`.
 */
async function forkPoint(ctx: GatewayContext, threadId: string, fork: { id: string; pointer: string }): Promise<string> {
  const status = await ctx.deps.runs.checkpointForkStatus(threadId, fork.id);
  if (status === "missing") throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", `checkpoint \`${fork.id}\` of thread \`${threadId}\` not found`, fork.pointer);
  if (status === "unforkable") unsupported(fork.pointer, "this checkpoint has pending writes of a step that has not finished (still running, or stopped mid-step) or an older format; pick a checkpoint whose step finished, e.g. the one before it");
  if (status === "unsupported") unsupported(fork.pointer, "this server's executor cannot run from an earlier checkpoint");
  return fork.id;
}

/** A fresh id for a threadless run's temporary thread. */
export function newTemporaryThreadId(): string {
  return randomUUID();
}

export function runPath(run: Pick<RunRecord, "threadId" | "runId">): string {
  return `/threads/${encodeURIComponent(run.threadId)}/runs/${encodeURIComponent(run.runId)}`;
}
