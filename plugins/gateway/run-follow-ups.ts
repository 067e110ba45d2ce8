import type { RunRecord } from "../../kernel/runs/types.js";
import type { GatewayContext } from "./context.js";
import { runToWire } from "./wire-records.js";
import { publicValues } from "./wire-json.js";

/** What happens once an admitted run has ended. */
export interface FollowUp {
  /** POST the finished run here (already checked at admission). */
  webhook?: string | null;
  /** Delete the run's thread afterwards (a threadless run with `on_completion: "delete"`). */
  deleteThread?: boolean;
  /** Wait for this too before deleting the thread (a `/runs/wait` still reading its values). */
  holdUntil?: Promise<unknown>;
}

/**
 * After the run's `end` (the run manager's `join`): send its webhook and delete its
 * temporary thread. Done by the worker that admitted the run, in the background; it never
 * throws (failures are logged). A worker that dies before the run ends leaves both undone
 * (docs/http.md, "Runs API").
 */
export function followUpRun(ctx: GatewayContext, run: RunRecord, followUp: FollowUp, log: { warn(obj: object, msg: string): void }): void {
  if (!followUp.webhook && !followUp.deleteThread) return;
  const signal = followUpSignal(ctx);
  void (async () => {
    const done = await ctx.deps.runs.join(run.runId, signal);
    const values = publicValues(await ctx.deps.runs.getThreadState(done.threadId).catch(() => ({})));
    if (followUp.deleteThread) {
      await followUp.holdUntil?.catch(() => undefined);
      await ctx.deps.runs.deleteThread(done.threadId, { user: done.user, waitMs: ctx.deleteWaitMs });
    }
    if (followUp.webhook && ctx.webhooks) {
      const delivery = await ctx.webhooks.deliver(followUp.webhook, webhookPayload(ctx, done, values), signal);
      if (!delivery.delivered && !signal.aborted) log.warn({ runId: done.runId, attempts: delivery.attempts, status: delivery.status, reason: delivery.reason }, "webhook not delivered");
    }
  })().catch((error: unknown) => {
    // The gateway closing stops waiting (shutdown): not a failure to report.
    if (!signal.aborted) log.warn({ err: error, runId: run.runId }, "run follow-up failed");
  });
}

const followUps = new WeakMap<GatewayContext, AbortController>();

/** Aborted when the gateway closes: follow-ups stop waiting for their runs and stop retrying webhooks. */
export function followUpSignal(ctx: GatewayContext): AbortSignal {
  let controller = followUps.get(ctx);
  if (!controller) followUps.set(ctx, (controller = new AbortController()));
  return controller.signal;
}

/** Stop every follow-up of this gateway (its `onClose`). */
export function stopFollowUps(ctx: GatewayContext): void {
  followUps.get(ctx)?.abort(new Error("the gateway is closing"));
}

/** LangGraph's webhook body: the Run, its final `status`, `values`, times, and `error` for a failed run. */
export function webhookPayload(ctx: GatewayContext, run: RunRecord, values: Record<string, unknown>): Record<string, unknown> {
  const failed = run.status === "error" || run.status === "timeout";
  return {
    ...runToWire(run),
    run_ended_at: run.updatedAt,
    webhook_sent_at: ctx.now(),
    values,
    ...(failed ? { error: run.outcome?.error?.message ?? `the run ended ${run.status}` } : {}),
  };
}
