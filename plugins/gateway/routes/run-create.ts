import type { FastifyReply, FastifyRequest } from "fastify";
import type { RunRecord } from "../../../kernel/runs/types.js";
import { admitRun, runPath, type AdmitOptions } from "../run-admission.js";
import { pipeRunEvents } from "../run-events.js";
import { clientGone, finalValues } from "../final-values.js";
import { openSse } from "../sse.js";
import { ThreadParams } from "../schemas.js";
import { RunCreateBody } from "../schemas-runs.js";
import { runToWire } from "../wire-records.js";
import { toWireJson } from "../wire-json.js";
import { answerKeepingAlive } from "../keep-alive.js";
import { followUpRun, stopFollowUps } from "../run-follow-ups.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/**
 * The three ways to start a run on a thread: in the background, streaming, or waiting
 * for its result. Each admits first (persisted before visible), then answers.
 */
export function registerRunCreateRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const schema = { params: ThreadParams, body: RunCreateBody };
  app.addHook("onClose", async () => stopFollowUps(ctx));
  app.post("/threads/:tid/runs", { schema }, async (request, reply) => startInBackground(ctx, request, reply, request.params.tid, request.body));
  app.post("/threads/:tid/runs/stream", { schema }, async (request, reply) => startStreaming(ctx, request, reply, request.params.tid, request.body));
  app.post("/threads/:tid/runs/wait", { schema }, async (request, reply) => startWaiting(ctx, request, reply, request.params.tid, request.body));
}

/** How a run is started: on the caller's thread, or on a thread made for it (threadless runs). */
export interface StartOptions extends AdmitOptions {
  /** Delete the thread once the run has ended (threadless, `on_completion: "delete"`). */
  temporary?: boolean;
}

/** Admit, then answer the Run at once (`Content-Location` names it). */
export async function startInBackground(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, threadId: string, body: RunCreateBody, options: StartOptions = {}): Promise<ReturnType<typeof runToWire>> {
  const run = await admitRun(ctx, request, threadId, body, options);
  followUpRun(ctx, run, { webhook: body.webhook ?? null, deleteThread: options.temporary === true }, request.log);
  reply.header("content-location", runPath(run));
  return runToWire(run);
}

/** Admit, then stream the run's events as SSE until `end`. */
export async function startStreaming(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, threadId: string, body: RunCreateBody, options: StartOptions = {}): Promise<void> {
  const run = await admitRun(ctx, request, threadId, body, options);
  followUpRun(ctx, run, { webhook: body.webhook ?? null, deleteThread: options.temporary === true }, request.log);
  const resumable = body.stream_resumable ?? true;
  const session = openSse(
    reply,
    {
      "content-location": runPath(run),
      // The SDK reconnects to `Location` (with Last-Event-ID) when a resumable stream drops.
      ...(resumable ? { location: `${runPath(run)}/stream` } : {}),
    },
    ctx.heartbeatMs,
  );
  await pipeRunEvents(session, ctx.deps.runs, run, {
    ...(run.request.streamMode ? { modes: run.request.streamMode } : {}),
    cancelOnDisconnect: (body.on_disconnect ?? "cancel") === "cancel",
    log: request.log,
  });
}

/** Admit, then answer the final values after the run's `end` (kept alive meanwhile). */
export async function startWaiting(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, threadId: string, body: RunCreateBody, options: StartOptions = {}): Promise<FastifyReply | void> {
  const gone = clientGone(reply.raw);
  const run = await admitRun(ctx, request, threadId, body, options);
  reply.header("content-location", runPath(run));
  const final = joinOrCancel(ctx, run, gone, (body.on_disconnect ?? "cancel") === "cancel").then((done) => finalValues(ctx, done));
  // A temporary thread is deleted only once the answer's values were read.
  followUpRun(ctx, run, { webhook: body.webhook ?? null, deleteThread: options.temporary === true, holdUntil: final }, request.log);
  return answerKeepingAlive(reply, ctx.heartbeatMs, final);
}

/**
 * Wait for the run's `end`. When the client leaves first, cancel the run if asked to
 * and stop waiting: nobody is there to answer, and nothing is reported as a success.
 */
export async function joinOrCancel(ctx: GatewayContext, run: RunRecord, gone: AbortSignal, cancelOnDisconnect: boolean): Promise<RunRecord> {
  const onGone = () => {
    if (cancelOnDisconnect) ctx.deps.runs.cancel(run.threadId, run.runId, { action: "interrupt" }).catch(() => undefined);
  };
  if (gone.aborted) onGone();
  else gone.addEventListener("abort", onGone, { once: true });
  try {
    return await ctx.deps.runs.join(run.runId, gone);
  } finally {
    gone.removeEventListener("abort", onGone);
  }
}

export function sendJson(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(toWireJson(value));
}
