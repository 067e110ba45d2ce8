import { describe, expect, it } from "vitest";
import { ModelCallError } from "../../../kernel/loop/model-call.js";
import { ScriptedProviderError } from "../../../tools/testing/scripted-model.js";
import { classifyProviderError, retryAfterMs } from "../../../plugins/error-fallback/index.js";

const NOW = Date.parse("2026-01-01T00:00:00.000Z");

function providerError(fields: Record<string, unknown>, message = "boom"): Error {
  return Object.assign(new Error(message), fields);
}

/** As the kernel hands it to wrapModelCall: the SDK error wrapped in ModelCallError. */
function wrapped(fields: Record<string, unknown>, message = "boom"): ModelCallError {
  return new ModelCallError(providerError(fields, message));
}

describe("classifyProviderError", () => {
  it.each([
    [401, "auth", false],
    [403, "auth", false],
    [429, "rate_limited", true],
    [408, "timeout", true],
    [500, "server_error", true],
    [503, "server_error", true],
    [529, "server_error", true],
    [400, "provider_error", false],
    [404, "provider_error", false],
  ] as const)("status %i → %s (retryable %s)", (status, type, retryable) => {
    const failure = classifyProviderError(wrapped({ status }), NOW);
    expect(failure).toMatchObject({ type, retryable, status, message: "boom" });
  });

  it("treats a 429 whose code, type or message says quota/billing as quota (never retried)", () => {
    expect(classifyProviderError(wrapped({ status: 429, code: "insufficient_quota" }), NOW).type).toBe("quota");
    expect(classifyProviderError(wrapped({ status: 429, type: "insufficient_quota" }), NOW).type).toBe("quota");
    expect(classifyProviderError(wrapped({ status: 429 }, "You exceeded your current quota, check your plan and billing details"), NOW)).toMatchObject({
      type: "quota",
      retryable: false,
    });
    // The OpenAI SDK keeps the body's fields in `error`.
    expect(classifyProviderError(wrapped({ status: 429, error: { code: "insufficient_quota", message: "x" } }), NOW).type).toBe("quota");
    expect(classifyProviderError(wrapped({ status: 429, code: "rate_limit_exceeded" }), NOW).type).toBe("rate_limited");
  });

  it("reads status and code from the scripted provider error the kernel wraps", () => {
    const error = new ModelCallError(new ScriptedProviderError({ status: 429, message: "rate limited" }));
    expect(classifyProviderError(error, NOW)).toEqual({ type: "rate_limited", retryable: true, message: "rate limited", status: 429 });
  });

  it("classifies network and timeout errors without a status", () => {
    expect(classifyProviderError(wrapped({ code: "ECONNRESET" }, "read ECONNRESET"), NOW)).toMatchObject({ type: "network", retryable: true });
    const fetchFailed = new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    expect(classifyProviderError(new ModelCallError(fetchFailed), NOW)).toMatchObject({ type: "network", retryable: true, message: "fetch failed" });
    expect(classifyProviderError(wrapped({}, "fetch failed"), NOW).type).toBe("network");
    expect(classifyProviderError(wrapped({ code: "ETIMEDOUT" }, "connect ETIMEDOUT 1.2.3.4:443"), NOW)).toMatchObject({ type: "timeout", retryable: true });
    expect(classifyProviderError(wrapped({}, "Request timed out."), NOW)).toMatchObject({ type: "timeout", retryable: true });
  });

  it("falls back to text for errors without status or code, and to provider_error (not retried)", () => {
    expect(classifyProviderError(wrapped({}, "Invalid API key provided"), NOW)).toMatchObject({ type: "auth", retryable: false });
    expect(classifyProviderError(wrapped({}, "Rate limit reached for requests"), NOW)).toMatchObject({ type: "rate_limited", retryable: true });
    expect(classifyProviderError(wrapped({}, "Overloaded"), NOW)).toMatchObject({ type: "server_error", retryable: true });
    expect(classifyProviderError(wrapped({}, "model does not support tools"), NOW)).toMatchObject({ type: "provider_error", retryable: false });
  });

  it("attaches Retry-After only to retryable errors", () => {
    expect(classifyProviderError(wrapped({ status: 429, headers: { "retry-after": "2" } }), NOW).retryAfterMs).toBe(2000);
    expect(classifyProviderError(wrapped({ status: 401, headers: { "retry-after": "2" } }), NOW).retryAfterMs).toBeUndefined();
  });
});

describe("retryAfterMs", () => {
  it("reads seconds, an HTTP date, retry-after-ms, a Headers object and `retryAfter`", () => {
    expect(retryAfterMs(wrapped({ headers: { "Retry-After": "1.5" } }), NOW)).toBe(1500);
    expect(retryAfterMs(wrapped({ headers: { "retry-after": new Date(NOW + 7000).toUTCString() } }), NOW)).toBe(7000);
    expect(retryAfterMs(wrapped({ headers: { "retry-after": new Date(NOW - 7000).toUTCString() } }), NOW)).toBe(0);
    expect(retryAfterMs(wrapped({ headers: { "retry-after-ms": "250", "retry-after": "9" } }), NOW)).toBe(250);
    expect(retryAfterMs(wrapped({ headers: new Headers({ "retry-after": "3" }) }), NOW)).toBe(3000);
    expect(retryAfterMs(wrapped({ retryAfter: 4 }), NOW)).toBe(4000);
    expect(retryAfterMs(wrapped({ response: { status: 429, headers: new Headers({ "retry-after": "5" }) } }), NOW)).toBe(5000);
  });

  it("is undefined when absent or unreadable", () => {
    expect(retryAfterMs(wrapped({ status: 429 }), NOW)).toBeUndefined();
    expect(retryAfterMs(wrapped({ headers: { "retry-after": "soon" } }), NOW)).toBeUndefined();
  });
});
