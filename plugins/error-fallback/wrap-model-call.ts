import type { AIMessage } from "@langchain/core/messages";
import { isKeelError } from "../../kernel/errors.js";
import { isGraphPause } from "../../kernel/loop/pause.js";
import type { HookContext, ModelHandler, ModelRequest } from "../../kernel/plugin/types.js";
import { backoffDelay } from "./backoff.js";
import type { CircuitBreaker } from "./breaker.js";
import { classifyProviderError, type ProviderFailure } from "./classify.js";
import { errorFallbackMessage } from "./fallback-message.js";

export interface ErrorFallbackOptions {
  attempts: number;
  baseMs: number;
  capMs: number;
  breakerFailures: number;
  breakerWindowMs: number;
  breakerOpenMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_OPTIONS: ErrorFallbackOptions = {
  attempts: 3,
  baseMs: 1000,
  capMs: 8000,
  breakerFailures: 5,
  breakerWindowMs: 60000,
  breakerOpenMs: 30000,
  maxRetryAfterMs: 60000,
};

export function readOptions(config: Readonly<Record<string, unknown>>): ErrorFallbackOptions {
  const out = { ...DEFAULT_OPTIONS };
  for (const key of Object.keys(out) as Array<keyof ErrorFallbackOptions>) {
    const value = config[key];
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return out;
}

/** What the retry loop needs from the outside world; injectable so tests are instant and deterministic. */
export interface RetryEnvironment {
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /** Wall-clock ms (the breaker's time; not the run clock, which is fixed in scenarios). */
  now(): number;
  breaker: CircuitBreaker;
}

const MESSAGE_CHARS = 200;

function describe(failure: ProviderFailure): string {
  const text = failure.message.length > MESSAGE_CHARS ? `${failure.message.slice(0, MESSAGE_CHARS)}…` : failure.message;
  return failure.status === undefined ? text : `${failure.status} ${text}`;
}

/**
 * Errors raised by inner plugins (a KeelError, which the kernel tags with the plugin) and
 * errors after the run was cancelled are not provider errors: they pass through untouched.
 */
function isProviderError(error: unknown, signal: AbortSignal): boolean {
  // A pause (LangGraph's `interrupt()` inside the call) is never a provider failure: never retried.
  return !signal.aborted && !isKeelError(error) && !isGraphPause(error);
}

export async function retryModelCall(request: ModelRequest, next: ModelHandler, ctx: HookContext, env: RetryEnvironment): Promise<AIMessage> {
  const options = readOptions(ctx.config);
  const breakerSettings = { failures: options.breakerFailures, windowMs: options.breakerWindowMs, openMs: options.breakerOpenMs };
  const fallbackId = `${ctx.runId}:${ctx.agent}:${ctx.turn}:error-fallback`;
  let last: ProviderFailure | undefined;

  for (let attempt = 1; ; attempt++) {
    const openMs = env.breaker.remainingOpenMs(env.now());
    if (openMs > 0) {
      const lastText = last ? `; last error: ${describe(last)}` : "";
      const message = `circuit breaker open after ${options.breakerFailures} provider failures within ${options.breakerWindowMs} ms; calls fail fast for ${openMs} ms more${lastText}`;
      ctx.guard({ action: "refuse", reason: "circuit_open", detail: message });
      return errorFallbackMessage({ type: "circuit_open", message, retryable: true }, "circuit_open", fallbackId);
    }
    try {
      // The same request per attempt: the kernel freezes requests, so no inner plugin can stack edits on it.
      const response = await next(request);
      env.breaker.recordSuccess();
      return response;
    } catch (error) {
      if (!isProviderError(error, ctx.signal)) throw error;
      const failure = classifyProviderError(error, env.now());
      last = failure;
      const summary = `${failure.type} after ${attempt} attempt${attempt === 1 ? "" : "s"}`;
      if (!failure.retryable) return errorFallbackMessage(failure, summary, fallbackId);
      if (env.breaker.recordFailure(env.now(), breakerSettings)) {
        ctx.guard({ action: "block", reason: "circuit_open", detail: `${options.breakerFailures} provider failures within ${options.breakerWindowMs} ms; failing fast for ${options.breakerOpenMs} ms` });
      }
      if (attempt >= options.attempts) return errorFallbackMessage(failure, summary, fallbackId);
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > options.maxRetryAfterMs) {
        // Still retryable: a caller may try again later; this call does not stall that long.
        const asked = { ...failure, message: `${failure.message} (the provider asked to retry after ${failure.retryAfterMs} ms, more than maxRetryAfterMs=${options.maxRetryAfterMs})` };
        return errorFallbackMessage(asked, summary, fallbackId);
      }
      if (env.breaker.remainingOpenMs(env.now()) > 0) continue;
      // Retry-After is honoured exactly (up to maxRetryAfterMs); otherwise jittered backoff capped at capMs.
      const delay = failure.retryAfterMs ?? backoffDelay(attempt, options.baseMs, options.capMs, env.random);
      ctx.guard({ action: "retry", reason: failure.type, detail: `attempt ${attempt + 1}/${options.attempts} after ${delay} ms: ${describe(failure)}`, retryInMs: delay });
      try {
        await env.sleep(delay, ctx.signal);
      } catch {
        // Cancelled while waiting: stop and surface the provider error (the kernel sees the abort).
        throw error;
      }
      if (ctx.signal.aborted) throw error;
    }
  }
}
