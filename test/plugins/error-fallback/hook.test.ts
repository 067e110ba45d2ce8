import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { KeelError } from "../../../kernel/errors.js";
import { ModelCallError } from "../../../kernel/loop/model-call.js";
import { keelMeta, usableText } from "../../../kernel/loop/message-meta.js";
import type { GuardEventData, HookContext, ModelRequest } from "../../../kernel/plugin/types.js";
import { ScriptedProviderError } from "../../../tools/testing/scripted-model.js";
import { createErrorFallbackPlugin, DEFAULT_OPTIONS, errorFallbackManifest } from "../../../plugins/error-fallback/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

function providerError(status: number | undefined, message: string, extra: Record<string, unknown> = {}) {
  const raw = Object.assign(new ScriptedProviderError({ message, ...(status === undefined ? {} : { status }) }), extra);
  return new ModelCallError(raw);
}

/** A plugin instance with a controllable clock and sleep, a fake ctx and a scripted `next`. */
function harness(outcomes: Array<Error | string>, config: Partial<typeof DEFAULT_OPTIONS> = {}) {
  let clock = 1_000_000;
  const sleeps: number[] = [];
  const guards: GuardEventData[] = [];
  const controller = new AbortController();
  const plugin = createErrorFallbackPlugin({
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    random: () => 0.5,
    now: () => clock,
  });
  let calls = 0;
  const requests: ModelRequest[] = [];
  const next = async (request: ModelRequest) => {
    requests.push(request);
    const outcome = outcomes[Math.min(calls++, outcomes.length - 1)]!;
    if (outcome instanceof Error) throw outcome;
    return new AIMessage({ content: outcome, id: `ok-${calls}` });
  };
  const ctx: HookContext = {
    threadId: "t1",
    runId: "r1",
    agent: "lead",
    turn: 4,
    plugin: "error-fallback",
    hook: "wrapModelCall",
    config: { ...DEFAULT_OPTIONS, ...config },
    signal: controller.signal,
    emit: () => {},
    guard: (data) => guards.push(data),
    update: () => {
      throw new Error("error-fallback writes no channel");
    },
    summarize: async () => "",
    now: () => "2026-01-01T00:00:00.000Z",
    port: () => {
      throw new Error("no ports");
    },
  };
  const request: ModelRequest = { messages: [new HumanMessage("hi")], tools: [], state: {}, forced: false };
  const call = () => plugin.hooks.wrapModelCall!(request, next, ctx);
  return {
    call,
    ctx,
    controller,
    sleeps,
    guards,
    requests,
    get calls() {
      return calls;
    },
    advance: (ms: number) => (clock += ms),
  };
}

describe("error-fallback wrapModelCall", () => {
  it("passes the plugin tester's manifest audit and declares retries", () => {
    expect(new PluginTester().audit(createErrorFallbackPlugin())).toEqual([]);
    expect(errorFallbackManifest.hooks.wrapModelCall).toEqual({ mutates: ["model.response"], retries: true });
  });

  it("retries a 429 twice with full-jitter backoff and returns the answer", async () => {
    const h = harness([providerError(429, "rate limited"), providerError(429, "rate limited"), "Done."]);
    const response = await h.call();
    expect(response.content).toBe("Done.");
    expect(h.calls).toBe(3);
    // random 0.5: half of min(8000, 1000·2^(n−1)).
    expect(h.sleeps).toEqual([500, 1000]);
    expect(h.guards).toEqual([
      { action: "retry", reason: "rate_limited", detail: "attempt 2/3 after 500 ms: 429 rate limited", retryInMs: 500 },
      { action: "retry", reason: "rate_limited", detail: "attempt 3/3 after 1000 ms: 429 rate limited", retryInMs: 1000 },
    ]);
    // Each attempt passes the same request on (the kernel freezes it, so no inner edit can stack).
    expect(h.requests[1]).toBe(h.requests[0]);
  });

  it("returns the error fallback after `attempts` failures", async () => {
    const h = harness([providerError(500, "internal error")]);
    const response = await h.call();
    expect(h.calls).toBe(3);
    expect(keelMeta(response).errorFallback).toEqual({ type: "server_error", message: "internal error", retryable: true });
    // The marker for clients that read messages rather than Keel's metadata.
    expect(response.additional_kwargs).toMatchObject({ keelErrorFallback: true, errorType: "server_error", errorDetail: "internal error" });
    expect(response.content).toBe("The model provider failed (server_error after 3 attempts): internal error");
    expect(keelMeta(response).addedText).toBe(response.content);
    expect(usableText(response)).toBe("");
    expect(response.tool_calls).toEqual([]);
    expect(response.id).toBe("r1:lead:4:error-fallback");
  });

  it("honours `attempts`", async () => {
    const h = harness([providerError(503, "unavailable")], { attempts: 5 });
    await h.call();
    expect(h.calls).toBe(5);
    expect(h.sleeps).toEqual([500, 1000, 2000, 4000]);
  });

  it.each([
    [401, "auth", "bad key"],
    [403, "auth", "forbidden"],
    [400, "provider_error", "context length exceeded"],
  ])("never retries a %i (%s)", async (status, type, message) => {
    const h = harness([providerError(status, message), "never"]);
    const response = await h.call();
    expect(h.calls).toBe(1);
    expect(h.guards).toEqual([]);
    expect(keelMeta(response).errorFallback).toEqual({ type, message, retryable: false });
  });

  it("never retries a quota error", async () => {
    const h = harness([providerError(429, "You exceeded your current quota", { code: "insufficient_quota" }), "never"]);
    const response = await h.call();
    expect(h.calls).toBe(1);
    expect(keelMeta(response).errorFallback).toEqual({ type: "quota", message: "You exceeded your current quota", retryable: false });
  });

  it("waits what Retry-After asks (no jitter) and schedules it as retryInMs", async () => {
    const h = harness([providerError(429, "slow down", { headers: { "retry-after": "2" } }), "ok"]);
    expect((await h.call()).content).toBe("ok");
    expect(h.sleeps).toEqual([2000]);
    expect(h.guards).toEqual([{ action: "retry", reason: "rate_limited", detail: "attempt 2/3 after 2000 ms: 429 slow down", retryInMs: 2000 }]);
  });

  it("honours a Retry-After longer than capMs up to maxRetryAfterMs (default 60,000)", async () => {
    expect(DEFAULT_OPTIONS.maxRetryAfterMs).toBe(60_000);
    const h = harness([providerError(429, "slow down", { headers: { "retry-after": "60" } }), "ok"]);
    expect((await h.call()).content).toBe("ok");
    expect(h.sleeps).toEqual([60_000]);
    expect(h.guards.map((g) => g.retryInMs)).toEqual([60_000]);
  });

  it("gives up at once, still retryable, when Retry-After exceeds maxRetryAfterMs", async () => {
    const h = harness([providerError(429, "slow down", { headers: { "retry-after": "61" } }), "never"]);
    const response = await h.call();
    expect(h.calls).toBe(1);
    expect(h.sleeps).toEqual([]);
    expect(h.guards).toEqual([]);
    expect(keelMeta(response).errorFallback).toEqual({
      type: "rate_limited",
      message: "slow down (the provider asked to retry after 61000 ms, more than maxRetryAfterMs=60000)",
      retryable: true,
    });
    const lower = harness([providerError(429, "slow down", { headers: { "retry-after-ms": "1500" } }), "never"], { maxRetryAfterMs: 1000 });
    expect(keelMeta(await lower.call()).errorFallback?.retryable).toBe(true);
    expect(lower.calls).toBe(1);
  });

  it("rethrows errors raised by inner plugins untouched, without retrying", async () => {
    const inner = new KeelError("KEEL_ERR_PLUGIN_FAILED", "plugin `x` failed in wrapModelCall: oops", { plugin: "x", hook: "wrapModelCall" });
    const h = harness([inner, "never"]);
    await expect(h.call()).rejects.toBe(inner);
    expect(h.calls).toBe(1);
  });

  it("stops waiting and rethrows the provider error when the run is cancelled during the backoff", async () => {
    const error = providerError(503, "unavailable");
    const h = harness([error, "never"]);
    const plugin = createErrorFallbackPlugin({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          h.controller.abort(new Error("cancelled"));
        }),
    });
    let calls = 0;
    const next = async () => {
      calls++;
      throw error;
    };
    await expect(plugin.hooks.wrapModelCall!({ messages: [], tools: [], state: {}, forced: false }, next, h.ctx)).rejects.toBe(error);
    expect(calls).toBe(1);
  });

  it("rethrows at once when the run was already cancelled", async () => {
    const error = providerError(503, "unavailable");
    const h = harness([error, "never"]);
    h.controller.abort();
    await expect(h.call()).rejects.toBe(error);
    expect(h.calls).toBe(1);
  });

  it("opens the breaker after 5 retryable failures in 60 s and fails fast while open", async () => {
    const h = harness([providerError(500, "internal error")]);
    await h.call(); // failures 1–3
    const second = await h.call(); // failure 5 opens the breaker before the 3rd attempt of this call
    expect(h.calls).toBe(5);
    expect(keelMeta(second).errorFallback?.type).toBe("circuit_open");
    expect(h.guards.filter((g) => g.action === "block")).toEqual([
      { action: "block", reason: "circuit_open", detail: "5 provider failures within 60000 ms; failing fast for 30000 ms" },
    ]);

    const fast = await h.call();
    expect(h.calls).toBe(5); // next was not called
    expect(keelMeta(fast).errorFallback).toMatchObject({ type: "circuit_open", retryable: true });
    expect(h.guards.at(-1)).toMatchObject({ action: "refuse", reason: "circuit_open" });

    h.advance(30_000);
    await h.call(); // half-open: the call goes through, fails, and reopens the breaker at once
    expect(h.calls).toBe(6);
    await h.call();
    expect(h.calls).toBe(6);
  });

  it("does not count non-retryable errors towards the breaker", async () => {
    const h = harness([providerError(401, "bad key")]);
    for (let i = 0; i < 6; i++) await h.call();
    expect(h.calls).toBe(6);
  });

  it("keeps one breaker per plugin instance", async () => {
    const a = harness([providerError(500, "down")], { attempts: 5 });
    await a.call();
    const b = harness([providerError(500, "down"), "fine"]);
    expect((await b.call()).content).toBe("fine");
  });
});
