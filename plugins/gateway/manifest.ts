import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the gateway's options (defaults applied when a stack is built). */
export const gatewayConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    heartbeatMs: {
      type: "integer",
      minimum: 100,
      default: 15000,
      description: "Interval of the `: heartbeat` comment on open event streams.",
    },
  },
} as const;

export const gatewayManifest: Manifest = {
  name: "gateway",
  version: "0.1.0",
  kind: "service",
  kernel: ">=0.1.0 <1",
  description:
    "The HTTP API (Fastify): LangGraph Platform's thread, run and assistant routes over the run service, with API-key auth, per-user thread ownership, replayable SSE streams and run reports.",
  provides: ["http"],
  hooks: {},
  config: gatewayConfigSchema as unknown as Record<string, unknown>,
};
