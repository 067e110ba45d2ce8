import type { RunRecord } from "../../../kernel/runs/types.js";
import { HttpError, notFound } from "../http-errors.js";
import { RunParams } from "../schemas.js";
import { RunCancelManyBody, RunCancelManyQuery } from "../schemas-runs.js";
import { isVisibleRun } from "../run-visibility.js";
import { ownedRun, ownedThread, type GatewayApp, type GatewayContext } from "../context.js";

/** The caller's threads are read in pages of this size when `cancelMany` names no thread. */
const THREAD_PAGE = 1000;

/** Deleting a finished run, and cancelling many runs at once (the SDK's `runs.delete`, `runs.cancelMany`). */
export function registerRunManageRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store, runs, bridge } = ctx.deps;

  /**
   * 204 once the run, its journal, report and stream events are deleted. A pending or
   * running run is 409 `KEEL_ERR_HTTP_RUN_ACTIVE` (cancel it first): a record is never
   * removed under a live run.
   */
  app.delete("/threads/:tid/runs/:rid", { schema: { params: RunParams } }, async (request, reply) => {
    const run = await ownedRun(ctx, request.params.tid, request.params.rid, request.user);
    if (run.status === "pending" || run.status === "running") {
      throw new HttpError(409, "KEEL_ERR_HTTP_RUN_ACTIVE", `run \`${run.runId}\` is ${run.status}; cancel it (and wait for its end) before deleting it`);
    }
    if (!store.deleteFinishedRun) throw new HttpError(500, "KEEL_ERR_HTTP_INTERNAL", "this server's run store cannot delete runs");
    if (!(await store.deleteFinishedRun(run.runId))) throw notFound(`run \`${run.runId}\` of thread \`${run.threadId}\``);
    await bridge.deleteRuns?.([run.runId]);
    return reply.code(204).send();
  });

  /**
   * `{ thread_id, run_ids }`: those runs of the caller's thread (any unknown one → 404
   * before anything is cancelled); or `{ status: pending | running | all, thread_id? }`:
   * the caller's runs in that state, on that thread or on all their threads. `?action=`
   * `interrupt` (default) or `rollback`. Finished runs are left as they are. 204.
   */
  app.post("/runs/cancel", { schema: { body: RunCancelManyBody, querystring: RunCancelManyQuery } }, async (request, reply) => {
    const body = request.body;
    const action = request.query.action ?? "interrupt";
    let targets: RunRecord[];
    if (body.run_ids != null) {
      if (body.thread_id == null) throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "invalid body at `/thread_id`: `run_ids` need their `thread_id`", "/thread_id");
      const threadId = body.thread_id;
      targets = [];
      for (const runId of body.run_ids) {
        const run = await ownedRun(ctx, threadId, runId, request.user);
        if (!isVisibleRun(run)) throw notFound(`run \`${runId}\` of thread \`${threadId}\``);
        targets.push(run);
      }
    } else if (body.status != null) {
      const threadIds = body.thread_id != null ? [(await ownedThread(ctx, body.thread_id, request.user)).threadId] : await callerThreads(ctx, request.user);
      const wanted = body.status === "all" ? ["pending", "running"] : [body.status];
      targets = [];
      for (const threadId of threadIds) targets.push(...(await store.activeRuns(threadId)).filter((run) => wanted.includes(run.status)));
    } else {
      throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "invalid body at `/run_ids`: give `thread_id` with `run_ids`, or a `status` (pending, running, all)", "/run_ids");
    }
    for (const run of targets) {
      if (run.status === "pending" || run.status === "running") await runs.cancel(run.threadId, run.runId, { action, user: request.user });
    }
    return reply.code(204).send();
  });
}

async function callerThreads(ctx: GatewayContext, user: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += THREAD_PAGE) {
    const page = await ctx.deps.store.searchThreads({ owner: user, limit: THREAD_PAGE, offset });
    ids.push(...page.map((thread) => thread.threadId));
    if (page.length < THREAD_PAGE) return ids;
  }
}
