import type { GatewayContext } from "./context.js";
import type { CronFires } from "./ports.js";
import { followUpSignal, webhookPayload } from "./run-follow-ups.js";
import { publicValues } from "./wire-json.js";

/**
 * A cron's `webhook` (checked at create and update like a run's): each run its fires admit
 * on this worker is POSTed there once it ended, as a run's webhook is (same allowlist,
 * timeout, retries, payload). The returned promise settles once the run's final values are
 * read, so a stateless fire's thread is deleted only after that.
 */
export function sendCronWebhooks(ctx: GatewayContext, fires: CronFires, log: { warn(obj: object, msg: string): void }): () => void {
  return fires.onFire((cron, run) => {
    const webhook = cron.payload.webhook;
    if (typeof webhook !== "string" || !ctx.webhooks) return;
    const sender = ctx.webhooks;
    const signal = followUpSignal(ctx);
    const read = (async () => {
      const done = await ctx.deps.runs.join(run.runId, signal);
      const values = publicValues(await ctx.deps.runs.getThreadState(done.threadId).catch(() => ({})));
      return { done, values };
    })();
    void read
      .then(async ({ done, values }) => {
        const delivery = await sender.deliver(webhook, webhookPayload(ctx, done, values), signal);
        if (!delivery.delivered && !signal.aborted) log.warn({ runId: done.runId, cronId: cron.cronId, attempts: delivery.attempts, status: delivery.status, reason: delivery.reason }, "cron webhook not delivered");
      })
      .catch((error: unknown) => {
        if (!signal.aborted) log.warn({ err: error, runId: run.runId, cronId: cron.cronId }, "cron webhook follow-up failed");
      });
    return read;
  });
}
