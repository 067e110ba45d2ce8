import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CircuitBreaker, backoffDelay, sleepWithSignal } from "../../../plugins/error-fallback/index.js";

describe("backoffDelay (full jitter)", () => {
  it("draws up to min(cap, base·2^(n−1))", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, 1000, 8000, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(backoffDelay(3, 1000, 8000, () => 0)).toBe(0);
    expect(backoffDelay(2, 1000, 8000, () => 0.206)).toBe(412);
  });

  it("stays within [0, ceiling] for any draw", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 60000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, base, cap, r) => {
        const delay = backoffDelay(n, base, cap, () => r);
        return Number.isInteger(delay) && delay >= 0 && delay <= Math.min(cap, base * 2 ** (n - 1));
      }),
    );
  });
});

describe("sleepWithSignal", () => {
  it("rejects at once when the signal aborts", async () => {
    const controller = new AbortController();
    const sleeping = sleepWithSignal(60_000, controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(sleeping).rejects.toThrow("cancelled");
  });
});

describe("CircuitBreaker", () => {
  const settings = { failures: 5, windowMs: 60_000, openMs: 30_000 };

  it("opens on the 5th failure within the window and stays open for openMs", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 4; i++) expect(breaker.recordFailure(1000 * i, settings)).toBe(false);
    expect(breaker.remainingOpenMs(4000)).toBe(0);
    expect(breaker.recordFailure(4000, settings)).toBe(true);
    expect(breaker.remainingOpenMs(4000)).toBe(30_000);
    expect(breaker.remainingOpenMs(33_999)).toBe(1);
    expect(breaker.remainingOpenMs(34_000)).toBe(0);
  });

  it("forgets failures older than the window", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 4; i++) breaker.recordFailure(0, settings);
    expect(breaker.recordFailure(60_000, settings)).toBe(false);
    expect(breaker.remainingOpenMs(60_000)).toBe(0);
  });

  it("is half-open after the open period: one failure reopens it, a success closes it", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 5; i++) breaker.recordFailure(0, settings);
    expect(breaker.remainingOpenMs(30_000)).toBe(0);
    expect(breaker.recordFailure(30_000, settings)).toBe(true);
    expect(breaker.remainingOpenMs(30_001)).toBe(29_999);
    expect(breaker.remainingOpenMs(60_000)).toBe(0);
    breaker.recordSuccess();
    for (let i = 0; i < 4; i++) expect(breaker.recordFailure(60_000, settings)).toBe(false);
  });

  it("a success clears the failures counted so far", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 4; i++) breaker.recordFailure(0, settings);
    breaker.recordSuccess();
    expect(breaker.recordFailure(1, settings)).toBe(false);
  });
});
