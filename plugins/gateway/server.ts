import Fastify, { type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { ApiKeys } from "./auth.js";
import { HttpError, toHttpError } from "./http-errors.js";
import type { AuthHandler } from "./auth-handler.js";
import { authenticateWith, authorizeAction } from "./authorize.js";
import { applyCors, readCorsOptions, type CorsOptions } from "./cors.js";
import { KeelError } from "../../kernel/errors.js";
import { registerProtocolV2Routes } from "./routes/protocol-v2.js";
import type { GatewayDeps } from "./ports.js";
import { HEARTBEAT_MS } from "./sse.js";
import { DELETE_WAIT_MS } from "../../kernel/runs/thread-purge.js";
import { answerClientError, guardConnections, readConnectionLimits, serverTimeouts, type ConnectionLimits } from "./connection-limits.js";
import { assertJsonDepth, assertLoopbackHost, isLoopbackAddress } from "./request-guards.js";
import { assertFinitePaging } from "./schemas.js";
import type { GatewayApp, GatewayContext, MetricsExposition, ObservabilityInfo } from "./context.js";
import { registerAssistantRoutes } from "./routes/assistants.js";
import { registerCronRoutes } from "./routes/crons.js";
import { registerAssistantGraphRoutes } from "./routes/assistants-graph.js";
import { INSPECTOR_ROUTES, registerHomeRoute } from "./routes/home.js";
import { registerMetaRoutes } from "./routes/meta.js";
import { registerRunArtifactRoutes } from "./routes/run-artifacts.js";
import { registerRunCreateRoutes } from "./routes/run-create.js";
import { registerRunReadRoutes } from "./routes/run-read.js";
import { registerThreadRoutes } from "./routes/threads.js";
import { registerThreadlessRunRoutes } from "./routes/runs-threadless.js";
import { registerRunManageRoutes } from "./routes/runs-manage.js";
import { WebhookSender, type WebhookOptions } from "./webhook.js";
import { registerThreadStateRoutes } from "./routes/threads-state.js";
import { registerStoreRoutes } from "./routes/store-items.js";
import { registerFeedRoute } from "./routes/feed.js";

/** HTTP API: bodies over 1 MiB are refused (413). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Routes any client may call without a key (health checks, discovery, the run inspector's page: its data comes through keyed routes). */
const OPEN_ROUTES = new Set(["GET /ok", "GET /ready", "GET /info", ...INSPECTOR_ROUTES]);
/** The longest path segment the router takes (Fastify's default, 100, is below the 128 an id may have). */
const MAX_PARAM_LENGTH = 1024;

function invalidPath(error: Error & { code?: string }): HttpError {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") return new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid path: a segment is longer than ${MAX_PARAM_LENGTH} characters (ids are at most 128)`);
  if (error.code === "FST_ERR_BAD_URL") return new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "invalid path: it is not a valid URL (percent-encode each segment as UTF-8)");
  return toHttpError(error);
}

export interface GatewayOptions {
  deps: GatewayDeps;
  /** API keys; none: every request is the local user (bind loopback only, see `keel serve`). */
  apiKeys?: ApiKeys;
  /** A custom auth handler (docs/http.md, "Custom auth"), instead of API keys: it names each request's user and authorizes actions. */
  auth?: AuthHandler;
  /** CORS for browser clients on other origins (docs/http.md, "CORS"); off without. */
  cors?: CorsOptions;
  /** Stack names served as assistants. */
  stacks: readonly string[];
  version: string;
  /** The kind of model the server runs (`demo`, `scripted`, `openai`, `anthropic`), said by `/info` as `model`; the run inspector offers a demo run when it is `demo`. Default: not said (null). */
  model?: string;
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** How long `DELETE /threads/:tid` waits for the purge before answering 202 (default 10 s). */
  deleteWaitMs?: number;
  logger?: FastifyServerOptions["logger"];
  now?: () => string;
  /** Prometheus metrics for `GET /metrics` (404 without; a key is needed when keys are configured). */
  metrics?: MetricsExposition;
  /** What `/info` reports about tracing. Default: OTLP off, LangSmith off. */
  observability?: ObservabilityInfo;
  /** Timeouts and the per-client connection cap (`DEFAULT_CONNECTION_LIMITS`; plugins/gateway/README.md). */
  limits?: Partial<ConnectionLimits>;
  /** Runs' `webhook`s: the hosts they may call, timeout, retries (webhook.ts). Default: off (a `webhook` is a 400). */
  webhooks?: WebhookOptions;
}

/**
 * Build the HTTP gateway (not listening yet): LangGraph Platform's thread and run routes
 * over a Keel run service, so `@langchain/langgraph-sdk`'s `Client` works unchanged.
 *
 * @example
 * const app = await createGateway({ deps: { runs, store, bridge }, stacks: ["lead"], version: "0.1.0" });
 * await app.listen({ port: 8787, host: "127.0.0.1" });
 */
export async function createGateway(options: GatewayOptions): Promise<GatewayApp> {
  const apiKeys = options.apiKeys ?? new ApiKeys();
  const now = options.now ?? (() => new Date().toISOString());
  const auth = options.auth;
  if (auth && apiKeys.size > 0) throw new KeelError("KEEL_ERR_CONFIG_INVALID", "give the gateway API keys or a custom auth handler, not both");
  const cors = options.cors ? readCorsOptions(options.cors) : undefined;
  const ctx: GatewayContext = {
    deps: options.deps,
    stacks: options.stacks,
    version: options.version,
    model: options.model ?? null,
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    deleteWaitMs: options.deleteWaitMs ?? DELETE_WAIT_MS,
    startedAt: now(),
    now,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    observability: options.observability ?? { tracing: { otlp: null, langsmith: false } },
    webhooks: new WebhookSender(options.webhooks ?? { allowHosts: [] }),
    authorize: (request, resource, action, value, authorizeOptions) => authorizeAction(auth, request, resource, action, value, authorizeOptions),
  };
  const limits = readConnectionLimits(options.limits);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Slow clients: headers, whole request, idle and keep-alive timeouts. Long waits and
    // streams are normal here: the request timeout ends once a request is in, and the idle
    // rule spares a connection whose answer the server is still working on.
    ...serverTimeouts(limits),
    clientErrorHandler: answerClientError,
    // `close()` comes after the run service shut down (its streams have ended): whatever
    // connection is still open then is cut, not waited for.
    forceCloseConnections: true,
    ajv: { customOptions: { allErrors: false, coerceTypes: "array", removeAdditional: false } },
    // Ids are up to 128 characters: a longer segment reaches its route, whose schema answers 400 naming it.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A path the router cannot take (a percent-escape that is not UTF-8, a segment over the
    // length above) is answered like an unknown route: authenticated first, in Keel's error shape.
    frameworkErrors: (error, request, reply) => {
      void (async () => {
        try {
          if (hostChecked()) assertLoopbackHost(request.headers.host);
          await authenticate(request);
          throw invalidPath(error);
        } catch (refusal) {
          const http = toHttpError(refusal);
          await (reply as FastifyReply).code(http.status).type("application/json; charset=utf-8").send(http.body());
        }
      })().catch(() => reply.raw.destroy());
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  acceptEmptyJsonBodies(app);
  const connections = guardConnections(app.server, limits);
  // DNS rebinding: a keyless server bound to loopback (or not listening: `inject`) answers loopback host names only.
  const hostChecked = () => {
    if (apiKeys.size > 0 || auth) return false;
    const address = app.server.address();
    return address === null || (typeof address === "object" && isLoopbackAddress(address.address));
  };
  app.decorateRequest("user", "");
  app.decorateRequest("authUser", undefined);
  const authenticate = async (request: FastifyRequest) => {
    if (!auth) {
      request.user = apiKeys.authenticate(request.headers);
      return;
    }
    request.authUser = await authenticateWith(auth, request);
    request.user = request.authUser.identity;
  };
  app.addHook("onRequest", async (request, reply) => {
    if (connections.overCap(request.raw.socket)) {
      throw new HttpError(429, "KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS", `more than ${limits.maxConnectionsPerClient} open connections from this address; close some and retry`);
    }
    if (hostChecked()) assertLoopbackHost(request.headers.host);
    // A preflight carries no credentials: answered before authentication.
    if (cors && applyCors(cors, request, reply)) return reply;
    // `HEAD` is served wherever `GET` is, and is as open.
    if (OPEN_ROUTES.has(`${request.method === "HEAD" ? "GET" : request.method} ${request.routeOptions.url ?? ""}`)) return;
    await authenticate(request);
  });

  app.addHook("preHandler", async (request) => {
    assertFinitePaging("query string", request.query);
    assertFinitePaging("body", request.body);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const http = toHttpError(error);
    // Only the unexpected is logged; 503s (shutting down, a waiter that left) are expected.
    if (http.status === 500) request.log.error({ err: error }, "request failed");
    if (reply.sent || reply.raw.headersSent) return;
    if (http.code === "KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS") reply.header("connection", "close");
    return reply.code(http.status).type("application/json; charset=utf-8").send(http.body());
  });
  app.setNotFoundHandler(async (request, reply) => {
    // Unknown routes need a key too (the host check and connection cap ran in onRequest), so the route table is not probed anonymously.
    if (!request.user) await authenticate(request);
    const http = new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`);
    return reply.code(404).send(http.body());
  });

  registerMetaRoutes(app, ctx);
  registerHomeRoute(app, ctx);
  registerAssistantRoutes(app, ctx);
  registerAssistantGraphRoutes(app, ctx);
  registerThreadRoutes(app, ctx);
  registerThreadStateRoutes(app, ctx);
  registerRunCreateRoutes(app, ctx);
  registerRunReadRoutes(app, ctx);
  registerRunArtifactRoutes(app, ctx);
  if (options.deps.crons) registerCronRoutes(app, ctx, options.deps.crons);
  registerThreadlessRunRoutes(app, ctx);
  registerRunManageRoutes(app, ctx);
  registerStoreRoutes(app, ctx);
  registerFeedRoute(app, ctx);
  registerProtocolV2Routes(app);
  await app.ready();
  return app;
}

/**
 * Fastify's JSON parser (prototype-poisoning protection kept) that also takes an empty
 * body — clients send `content-type: application/json` on bodiless POSTs — and refuses
 * nesting deeper than `MAX_JSON_DEPTH` (400 `KEEL_ERR_HTTP_BODY_TOO_DEEP`).
 */
function acceptEmptyJsonBodies(app: GatewayApp): void {
  const parse = app.getDefaultJsonParser("error", "error");
  // JSON only: a text body would otherwise reach the schema as a string.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (typeof body === "string" && body.trim() === "") return done(null, undefined);
    parse(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      try {
        assertJsonDepth(value);
      } catch (tooDeep) {
        return done(tooDeep as Error, undefined);
      }
      done(null, value);
    });
  });
}
