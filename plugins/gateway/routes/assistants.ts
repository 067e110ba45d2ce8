import { notFound } from "../http-errors.js";
import { AssistantParams, AssistantSearchBody } from "../schemas.js";
import { assistantToWire, metadataMatches } from "../wire-records.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/** One assistant per stack (`assistant_id` = `graph_id` = the stack name); they are not editable. */
export function registerAssistantRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const all = () => ctx.stacks.map((stack) => assistantToWire(stack, ctx.startedAt));

  app.post("/assistants/search", { schema: { body: AssistantSearchBody } }, async (request) => {
    const query = request.body ?? {};
    const auth = await ctx.authorize(request, "assistants", "search", { graph_id: query.graph_id, metadata: query.metadata ?? {}, limit: query.limit ?? 10, offset: query.offset ?? 0 });
    const matches = all().filter(
      (a) =>
        (query.graph_id == null || a.graph_id === query.graph_id) &&
        (query.name == null || a.name === query.name) &&
        metadataMatches(a.metadata, query.metadata) &&
        auth.matches(a.metadata),
    );
    const offset = query.offset ?? 0;
    return matches.slice(offset, offset + (query.limit ?? 10));
  });

  app.get("/assistants/:aid", { schema: { params: AssistantParams } }, async (request) => {
    const what = `assistant \`${request.params.aid}\``;
    const auth = await ctx.authorize(request, "assistants", "read", { assistant_id: request.params.aid }, { what });
    const found = all().find((a) => a.assistant_id === request.params.aid);
    if (!found || !auth.matches(found.metadata)) throw notFound(what);
    return found;
  });
}
