import type { GatewayApp, GatewayContext } from "../context.js";
import { HttpError, errorBody } from "../http-errors.js";
import { checkReadiness, notReadyMessage } from "../readiness.js";

/**
 * `GET /ok`, `GET /ready` and `GET /info`: the routes that need no API key (health checks, discovery).
 * `/ok` is liveness: 200 while the process serves HTTP, whatever its dependencies do.
 * `/ready` is readiness: 200 `{ ok: true, checks }` when the worker admits runs and the store
 * and the stream bridge answer now, else 503 `KEEL_ERR_HTTP_NOT_READY` naming them in `checks`.
 * `/info` says truthfully what is on: `flags.langsmith` (LangChain's LangSmith tracing),
 * `tracing.otlp` (where spans are exported, or null), `metrics.prometheus` (the metrics path,
 * or null), `model` (the kind of model the server runs: `demo` makes the run inspector offer a
 * demo run; null when the host did not say). `GET /metrics` (Prometheus text) needs a key like every other route.
 */
export function registerMetaRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { tracing } = ctx.observability;
  app.get("/ok", async () => ({ ok: true }));
  app.get("/ready", async (_request, reply) => {
    const readiness = await checkReadiness(ctx.deps);
    if (readiness.ready) return { ok: true, checks: readiness.checks };
    return reply.code(503).send({ ...errorBody("KEEL_ERR_HTTP_NOT_READY", notReadyMessage(readiness)), checks: readiness.checks });
  });
  app.get("/info", async () => ({
    name: "keel",
    version: ctx.version,
    stacks: [...ctx.stacks],
    model: ctx.model,
    flags: { assistants: true, crons: ctx.deps.crons !== undefined, langsmith: tracing.langsmith },
    tracing: { otlp: tracing.otlp, langsmith: tracing.langsmith },
    metrics: { prometheus: ctx.metrics ? "/metrics" : null },
  }));
  app.get("/metrics", async (_request, reply) => {
    if (!ctx.metrics) throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", "metrics are not served here");
    const text = await ctx.metrics.render();
    return reply.type(ctx.metrics.contentType).send(text);
  });
}
