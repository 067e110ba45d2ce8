import { describe, expect, it } from "vitest";
import { guardValue, unguard, WriteGuard } from "../../kernel/loop/enforcement.js";

describe("WriteGuard (one proxy handler per plugin, hook and channel)", () => {
  it("hands a hook the same view of the same value, another for another hook, and refuses writes naming plugin, hook and channel", () => {
    const history = [1, 2, 3];
    const first = new WriteGuard("p", "beforeModel", "messages");
    const second = new WriteGuard("q", "afterModel", "messages");
    const view = guardValue(history, first);
    expect(guardValue(history, first)).toBe(view);
    expect(guardValue(history, second)).not.toBe(view);
    expect(unguard(view)).toBe(history);
    expect(view[1]).toBe(2);
    expect(() => view.push(4)).toThrow(/plugin `p` changed `messages` in place in beforeModel/);
    expect(() => (guardValue(history, second)[0] = 9)).toThrow(/plugin `q` changed `messages` in place in afterModel/);
    expect(history).toEqual([1, 2, 3]);
    // A new value under the same guard gets its own view (the guard's handler is shared).
    const next = [...history, 4];
    expect(guardValue(next, first)).not.toBe(view);
    expect(unguard(guardValue(next, first))).toBe(next);
  });
});

describe("a frozen channel value needs no write guard", () => {
  it("is handed on as it is, and a write to it still throws", () => {
    const history = Object.freeze([1, 2, 3]);
    const guard = new WriteGuard("p", "beforeModel", "messages");
    expect(guardValue(history, guard)).toBe(history);
    expect(() => (history as number[]).push(4)).toThrow(TypeError);
  });
});
