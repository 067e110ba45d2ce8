import { visibleAssistant } from "../assistant-registry.js";
import { HttpError } from "../http-errors.js";
import { AssistantGraphQuery, AssistantIdParams, AssistantSubgraphParams, AssistantSubgraphsQuery } from "../schemas-assistants.js";
import type { StackCatalog } from "../stack-catalog.js";
import type { GatewayApp, GatewayContext } from "../context.js";

/** What an assistant runs: its loop's graph, its schemas, its child graphs (the host's stack catalog). */
export function registerAssistantGraphRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const catalog = (): StackCatalog => {
    if (!ctx.deps.catalog) throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", "this server has no stack catalog: graphs and schemas are not available");
    return ctx.deps.catalog;
  };

  app.get("/assistants/:aid/graph", { schema: { params: AssistantIdParams, querystring: AssistantGraphQuery } }, async (request) => {
    const assistant = await visibleAssistant(ctx, request.params.aid, request.user);
    const xray = request.query.xray;
    return catalog().graph(assistant.graphId, { xray: xray === true || (typeof xray === "number" && xray > 0) });
  });

  app.get("/assistants/:aid/schemas", { schema: { params: AssistantIdParams } }, async (request) => {
    const assistant = await visibleAssistant(ctx, request.params.aid, request.user);
    return { graph_id: assistant.graphId, ...catalog().schemas(assistant.graphId, assistant.context) };
  });

  app.get("/assistants/:aid/subgraphs", { schema: { params: AssistantIdParams, querystring: AssistantSubgraphsQuery } }, async (request) => {
    const assistant = await visibleAssistant(ctx, request.params.aid, request.user);
    return catalog().subgraphs(assistant.graphId);
  });

  app.get("/assistants/:aid/subgraphs/:namespace", { schema: { params: AssistantSubgraphParams, querystring: AssistantSubgraphsQuery } }, async (request) => {
    const assistant = await visibleAssistant(ctx, request.params.aid, request.user);
    const all = catalog().subgraphs(assistant.graphId);
    const found = all[request.params.namespace];
    return found ? { [request.params.namespace]: found } : {};
  });
}
