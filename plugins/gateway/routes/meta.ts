import type { GatewayApp, GatewayContext } from "../context.js";
import { HttpError } from "../http-errors.js";

/**
 * `GET /ok` and `GET /info`: the two routes that need no API key (health checks, discovery).
 * `/info` says truthfully what is on: `flags.langsmith` (LangChain's LangSmith tracing),
 * `tracing.otlp` (where spans are exported, or null), `metrics.prometheus` (the metrics path,
 * or null). `GET /metrics` (Prometheus text) needs a key like every other route.
 */
export function registerMetaRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { tracing } = ctx.observability;
  app.get("/ok", async () => ({ ok: true }));
  app.get("/info", async () => ({
    name: "keel",
    version: ctx.version,
    stacks: [...ctx.stacks],
    flags: { assistants: true, crons: false, langsmith: tracing.langsmith },
    tracing: { otlp: tracing.otlp, langsmith: tracing.langsmith },
    metrics: { prometheus: ctx.metrics ? "/metrics" : null },
  }));
  app.get("/metrics", async (_request, reply) => {
    if (!ctx.metrics) throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", "metrics are not served here");
    const text = await ctx.metrics.render();
    return reply.type(ctx.metrics.contentType).send(text);
  });
}
