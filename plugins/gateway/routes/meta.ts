import type { GatewayApp, GatewayContext } from "../context.js";

/** `GET /ok` and `GET /info`: the two routes that need no API key (health checks, discovery). */
export function registerMetaRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.get("/ok", async () => ({ ok: true }));
  app.get("/info", async () => ({
    name: "keel",
    version: ctx.version,
    stacks: [...ctx.stacks],
    flags: { assistants: true, crons: false, langsmith: false },
  }));
}
