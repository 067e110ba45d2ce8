import type { FastifyReply } from "fastify";
import type { RunRecord } from "../../../kernel/runs/types.js";
import { admitRun, runPath } from "../run-admission.js";
import { pipeRunEvents } from "../run-events.js";
import { clientGone, finalValues } from "../final-values.js";
import { openSse } from "../sse.js";
import { RunCreateBody, ThreadParams } from "../schemas.js";
import { runToWire } from "../wire-records.js";
import { toWireJson } from "../wire-json.js";
import { answerKeepingAlive } from "../keep-alive.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/**
 * The three ways to start a run on a thread: in the background, streaming, or waiting
 * for its result. Each admits first (persisted before visible), then answers.
 */
export function registerRunCreateRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { runs } = ctx.deps;
  const schema = { params: ThreadParams, body: RunCreateBody };

  app.post("/threads/:tid/runs", { schema }, async (request, reply) => {
    const run = await admitRun(ctx, request, request.params.tid, request.body);
    reply.header("content-location", runPath(run));
    return runToWire(run);
  });

  app.post("/threads/:tid/runs/stream", { schema }, async (request, reply) => {
    const run = await admitRun(ctx, request, request.params.tid, request.body);
    const resumable = request.body.stream_resumable ?? true;
    const session = openSse(
      reply,
      {
        "content-location": runPath(run),
        // The SDK reconnects to `Location` (with Last-Event-ID) when a resumable stream drops.
        ...(resumable ? { location: `${runPath(run)}/stream` } : {}),
      },
      ctx.heartbeatMs,
    );
    await pipeRunEvents(session, runs, run, {
      ...(run.request.streamMode ? { modes: run.request.streamMode } : {}),
      cancelOnDisconnect: (request.body.on_disconnect ?? "cancel") === "cancel",
      log: request.log,
    });
  });

  app.post("/threads/:tid/runs/wait", { schema }, async (request, reply) => {
    const gone = clientGone(reply.raw);
    const run = await admitRun(ctx, request, request.params.tid, request.body);
    reply.header("content-location", runPath(run));
    const final = joinOrCancel(ctx, run, gone, (request.body.on_disconnect ?? "cancel") === "cancel");
    return answerKeepingAlive(reply, ctx.heartbeatMs, final.then((done) => finalValues(ctx, done)));
  });
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
