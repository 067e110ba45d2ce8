import { newTemporaryThreadId } from "../run-admission.js";
import { RunBatchBody, RunCreateBody, type RunCreateBody as RunCreateBodyType } from "../schemas-runs.js";
import { HttpError } from "../http-errors.js";
import { checkRunBody } from "../run-admission.js";
import { applyAssistant } from "../assistant-registry.js";
import { startInBackground, startStreaming, startWaiting, type StartOptions } from "./run-create.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/**
 * Threadless ("stateless") runs: `POST /runs`, `/runs/stream`, `/runs/wait` and
 * `/runs/batch`. Each run gets a new thread of the caller's; with `on_completion: "delete"`
 * (LangGraph's default) the thread — its checkpoints, runs, journal and report — is deleted
 * once the run has ended, with `keep` it stays like any other thread.
 */
export function registerThreadlessRunRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const schema = { body: RunCreateBody };
  app.post("/runs", { schema }, async (request, reply) => startInBackground(ctx, request, reply, newTemporaryThreadId(), request.body, threadless(request.body)));
  app.post("/runs/stream", { schema }, async (request, reply) => startStreaming(ctx, request, reply, newTemporaryThreadId(), request.body, threadless(request.body)));
  app.post("/runs/wait", { schema }, async (request, reply) => startWaiting(ctx, request, reply, newTemporaryThreadId(), request.body, threadless(request.body)));

  /**
   * Every payload is checked before any run is admitted; runs are then admitted one by one
   * (each on its own new thread). An admission refused midway (the per-user limit) answers
   * its error: the runs admitted before it stay and run.
   */
  app.post("/runs/batch", { schema: { body: RunBatchBody } }, async (request, reply) => {
    for (const [index, body] of request.body.entries()) {
      try {
        checkRunBody(ctx, (await applyAssistant(ctx, request.user, body as never)) as typeof body);
      } catch (error) {
        if (error instanceof HttpError) throw new HttpError(error.status, error.code, error.message, `/${index}${error.pointer ?? ""}`);
        throw error;
      }
    }
    const answers = [];
    for (const body of request.body) answers.push(await startInBackground(ctx, request, reply, newTemporaryThreadId(), body, threadless(body)));
    reply.removeHeader("content-location");
    return answers;
  });
}

/** A threadless run always creates its thread (whatever `if_not_exists` says, as in LangGraph). */
function threadless(body: RunCreateBodyType): StartOptions {
  return { createMissing: true, temporary: (body.on_completion ?? "delete") === "delete" };
}
