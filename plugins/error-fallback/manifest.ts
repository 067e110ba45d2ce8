import type { Manifest } from "../../kernel/plugin/types.js";

/** JSON Schema of the error-fallback options (defaults are applied when the stack is built). */
export const errorFallbackConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    attempts: { type: "integer", minimum: 1, default: 3, description: "Total model call attempts per turn (the first call included)." },
    baseMs: { type: "integer", minimum: 0, default: 1000, description: "Backoff base: the delay before retry n is random in [0, min(capMs, baseMs * 2^(n-1))]." },
    capMs: { type: "integer", minimum: 0, default: 8000, description: "Longest jittered backoff wait before a retry (a provider's Retry-After is bounded by `maxRetryAfterMs` instead)." },
    maxRetryAfterMs: {
      type: "integer",
      minimum: 0,
      default: 60000,
      description: "Longest provider Retry-After that is waited for; a longer one ends the retries (the fallback is returned, `retryable: true`).",
    },
    breakerFailures: { type: "integer", minimum: 1, default: 5, description: "Retryable provider failures within `breakerWindowMs` that open the circuit breaker." },
    breakerWindowMs: { type: "integer", minimum: 1, default: 60000, description: "Window in which breaker failures are counted." },
    breakerOpenMs: { type: "integer", minimum: 0, default: 30000, description: "How long an open breaker fails calls fast without calling the provider." },
  },
} as const;

export const errorFallbackManifest: Manifest = {
  name: "error-fallback",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Retries transient provider errors with jittered backoff (honouring Retry-After), never auth or quota errors; when retries are exhausted the run ends cleanly with a `failed` error-fallback message. A circuit breaker fails fast while the provider is down.",
  // receipts writes model.response in wrapModelCall too (it stamps the receipt ids shown).
  requiresBefore: [{ name: "receipts", optional: true }],
  hooks: {
    wrapModelCall: { mutates: ["model.response"], retries: true },
  },
  config: errorFallbackConfigSchema as unknown as Record<string, unknown>,
};
