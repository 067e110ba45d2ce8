import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { sleepWithSignal } from "./backoff.js";
import { CircuitBreaker } from "./breaker.js";
import { errorFallbackManifest } from "./manifest.js";
import { retryModelCall } from "./wrap-model-call.js";

export interface ErrorFallbackDeps {
  /** Wait before a retry; must reject when the signal aborts (default: a real timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform draw in [0, 1) for the backoff jitter (default `Math.random`). */
  random?: () => number;
  /** Wall-clock ms for the circuit breaker (default `Date.now`). */
  now?: () => number;
}

/**
 * A fresh error-fallback plugin with its own circuit breaker. The breaker belongs to the
 * instance (one provider per process in the default export); tests inject the clock,
 * the jitter and the sleep so they are instant and deterministic.
 *
 * @example
 * const plugin = createErrorFallbackPlugin({ sleep: async () => {}, random: () => 0.5 });
 * await runScenario(scenario, { plugins: [plugin] });
 */
export function createErrorFallbackPlugin(deps: ErrorFallbackDeps = {}): Plugin {
  const env = {
    sleep: deps.sleep ?? sleepWithSignal,
    random: deps.random ?? Math.random,
    now: deps.now ?? Date.now,
    breaker: new CircuitBreaker(),
  };
  return definePlugin({
    manifest: errorFallbackManifest,
    hooks: {
      wrapModelCall: (request, next, ctx) => retryModelCall(request, next, ctx, env),
    },
  });
}

/** The built-in instance (real timers; one circuit breaker for the process). */
export const errorFallbackPlugin = createErrorFallbackPlugin();

export default errorFallbackPlugin;

export { backoffDelay, sleepWithSignal } from "./backoff.js";
export { CircuitBreaker, type BreakerSettings } from "./breaker.js";
export { classifyProviderError, cleanProviderMessage, retryAfterMs, type ProviderErrorType, type ProviderFailure } from "./classify.js";
export { DEFAULT_PROVIDER_IDLE_MS, idleTimeoutFetch, ProviderIdleTimeoutError } from "./idle-timeout-fetch.js";
export { errorFallbackMessage, type FallbackInfo } from "./fallback-message.js";
export { errorFallbackConfigSchema, errorFallbackManifest } from "./manifest.js";
export { DEFAULT_OPTIONS, readOptions, retryModelCall, type ErrorFallbackOptions, type RetryEnvironment } from "./wrap-model-call.js";
