import type { FastifyReply, FastifyRequest } from "fastify";
import type { RunRecord } from "../../../kernel/runs/types.js";
import type { RunManager } from "../../../kernel/runs/run-manager.js";
import { ZERO_EVENT_ID } from "../../../kernel/runs/stream-event-id.js";
import { gapEvent } from "../../../kernel/runs/stream-gap.js";
import { runPath } from "../run-admission.js";
import { pipeRunEvents } from "../run-events.js";
import { clientGone, finalValues } from "../final-values.js";
import { openSse, readLastEventIdHeader, type SseSession } from "../sse.js";
import { CancelQuery, JoinStreamQuery, RunListQuery, RunParams, ThreadParams, isTrue } from "../schemas.js";
import { runToWire } from "../wire-records.js";
import { authorizedRun, authorizedThread, type GatewayApp, type GatewayContext } from "../context.js";
import { notFound } from "../http-errors.js";
import { isVisibleRun, listVisibleRuns } from "../run-visibility.js";
import { RunOnlyParams } from "../schemas-runs.js";
import { joinOrCancel } from "./run-create.js";
import { answerKeepingAlive } from "../keep-alive.js";

/** Reading, joining, rejoining and cancelling existing runs. */
export function registerRunReadRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store, runs } = ctx.deps;

  app.get("/threads/:tid/runs", { schema: { params: ThreadParams, querystring: RunListQuery } }, async (request) => {
    // LangGraph asks `threads:search` for a thread's runs; a refusal is the thread's 404.
    const { limit = 10, offset = 0, status } = request.query;
    const thread = await authorizedThread(ctx, request, "search", request.params.tid, { limit, offset, status });
    // A run cancelled with rollback is not listed (LangGraph deletes it; run-visibility.ts).
    const found = await listVisibleRuns(store, thread.threadId, { limit, offset, ...(status ? { status } : {}) });
    return found.map(runToWire);
  });

  app.get("/threads/:tid/runs/:rid", { schema: { params: RunParams } }, async (request) => {
    const run = await authorizedRun(ctx, request, "read", request.params.tid, request.params.rid);
    if (!isVisibleRun(run)) throw notFound(`run \`${run.runId}\` of thread \`${run.threadId}\``);
    return runToWire(run);
  });

  /** The SDK's `joinStream(null, runId)`: a run of the caller's (a threadless run's) addressed by its id alone. */
  app.get("/runs/:rid/stream", { schema: { params: RunOnlyParams, querystring: JoinStreamQuery } }, async (request, reply) => {
    const found = await store.getRun(request.params.rid);
    // Another user's run (or one the auth handler does not let the caller read) reads as missing, without naming its thread.
    if (!found || found.user !== request.user) throw notFound(`run \`${request.params.rid}\``);
    const run = await authorizedRun(ctx, request, "read", found.threadId, found.runId).catch(() => {
      throw notFound(`run \`${request.params.rid}\``);
    });
    await rejoin(ctx, run, request, reply);
  });

  app.get("/threads/:tid/runs/:rid/join", { schema: { params: RunParams, querystring: JoinStreamQuery } }, async (request, reply) => {
    const gone = clientGone(reply.raw);
    const run = await authorizedRun(ctx, request, "read", request.params.tid, request.params.rid);
    const final = joinOrCancel(ctx, run, gone, isTrue(request.query.cancel_on_disconnect));
    return answerKeepingAlive(reply, ctx.heartbeatMs, final.then((done) => finalValues(ctx, done)));
  });

  app.get("/threads/:tid/runs/:rid/stream", { schema: { params: RunParams, querystring: JoinStreamQuery } }, async (request, reply) => {
    const run = await authorizedRun(ctx, request, "read", request.params.tid, request.params.rid);
    await rejoin(ctx, run, request, reply);
  });

  app.post("/threads/:tid/runs/:rid/cancel", { schema: { params: RunParams, querystring: CancelQuery } }, async (request, reply) => {
    const run = await authorizedRun(ctx, request, "update", request.params.tid, request.params.rid);
    const wait = isTrue(request.query.wait);
    await runs.cancel(run.threadId, run.runId, { action: request.query.action ?? "interrupt", wait, ...(wait ? { signal: clientGone(reply.raw) } : {}) });
    return reply.code(wait ? 204 : 202).send();
  });
}

/**
 * A finished run whose events are no longer retained (24 h after its end, or a restarted
 * in-memory bridge): say so with `gap`, then close as every stream closes — the final
 * values (or error) and `end`, built from the run's record.
 */
async function closeGoneStream(session: SseSession, runs: RunManager, run: RunRecord, lastEventId: string | undefined): Promise<void> {
  try {
    const from = lastEventId ?? ZERO_EVENT_ID;
    if (!(await session.send(gapEvent(run.runId, from, { earliest: null, latest: null }, from)))) return;
    for (const event of await runs.closingEvents(run, [])) if (!(await session.send(event))) return;
  } finally {
    session.close();
  }
}

async function streamIsGone(ctx: GatewayContext, run: RunRecord): Promise<boolean> {
  return run.status !== "pending" && run.status !== "running" && (await ctx.deps.bridge.read(run.runId)).length === 0;
}

/**
 * A rejoin (`…/runs/:rid/stream`, threaded or not): the events after `Last-Event-ID` (header,
 * else `?last_event_id`), then live until `end`, in the run's own stream modes or those
 * `?stream_mode=` names.
 */
async function rejoin(ctx: GatewayContext, run: RunRecord, request: Pick<FastifyRequest, "headers" | "log"> & { query: JoinStreamQuery }, reply: FastifyReply): Promise<void> {
  const { runs } = ctx.deps;
  const lastEventId = readLastEventIdHeader(request.headers, request.query.last_event_id);
  const queryModes = request.query.stream_mode;
  const modes = queryModes === undefined ? run.request.streamMode : Array.isArray(queryModes) ? queryModes : [queryModes];
  const gone = await streamIsGone(ctx, run);
  const session = openSse(reply, { "content-location": runPath(run) }, ctx.heartbeatMs);
  if (gone) return closeGoneStream(session, runs, run, lastEventId);
  await pipeRunEvents(session, runs, run, {
    ...(lastEventId ? { lastEventId } : {}),
    ...(modes ? { modes } : {}),
    cancelOnDisconnect: isTrue(request.query.cancel_on_disconnect),
    log: request.log,
  });
}
