import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { gatewayManifest } from "./manifest.js";
import { createGateway, type GatewayOptions } from "./server.js";

/** The `http` port: builds the Fastify app over the deps the host wires (store, run service). */
export interface HttpPort {
  create(options: Omit<GatewayOptions, "heartbeatMs">): ReturnType<typeof createGateway>;
}

/**
 * The HTTP gateway service. Hosts (`keel serve`) call `createGateway` directly; the
 * `http` port exists so a stack can declare the gateway and configure it by name.
 *
 * @example
 * const app = await createGateway({ deps: { runs, store, bridge }, apiKeys: ApiKeys.parse(process.env.KEEL_API_KEYS), stacks: ["lead"], version });
 * await app.listen({ host: "127.0.0.1", port: 8787 });
 */
export const gatewayPlugin = definePlugin({
  manifest: gatewayManifest,
  hooks: {},
  services: {
    http: (config): HttpPort => ({
      create: (options) =>
        createGateway({
          ...options,
          heartbeatMs: config.heartbeatMs as number,
        }),
    }),
  },
});

export default gatewayPlugin;

export { createGateway, BODY_LIMIT_BYTES, type GatewayOptions } from "./server.js";
export { ApiKeys, LOCAL_USER } from "./auth.js";
export { toAuthHandler, authMatches, type AuthHandler, type AuthEvent, type AuthFilters, type AuthIdentity, type AuthResource, type AuthResult, type AuthUser } from "./auth-handler.js";
export type { AuthDecision, AuthorizeOptions } from "./authorize.js";
export type { CorsOptions } from "./cors.js";
export { HttpError, toHttpError, type ErrorBody } from "./http-errors.js";
export { sseFrame, HEARTBEAT_FRAME, HEARTBEAT_MS } from "./sse.js";
export { wantedEvent } from "./run-events.js";
export { toWireJson, toWireValue, publicValues } from "./wire-json.js";
export { runToWire, threadToWire, assistantToWire } from "./wire-records.js";
export type { GatewayDeps } from "./ports.js";
export type { GatewayApp, MetricsExposition, ObservabilityInfo } from "./context.js";
export { createThreadCheckpoints, type ThreadCheckpoints } from "./thread-checkpoints.js";
export { cronFireMetadata } from "./run-metadata.js";
