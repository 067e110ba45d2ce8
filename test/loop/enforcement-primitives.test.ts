import fc from "fast-check";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { guardValue, matchesSnapshot, sameSnapshot, snapshot, unguard, WriteGuard } from "../../kernel/loop/enforcement.js";

/** Plain data with shared subtrees and cycles: what a fingerprint walk must handle. */
const data = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null), fc.constant(undefined)),
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("leaf"), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 2 }), tie("node"), { maxKeys: 4 })),
})).node;

/** Every container of `value` (depth first), so a test can pick one to edit. */
function containers(value: unknown, out: object[] = [], seen = new Set<object>()): object[] {
  if (typeof value !== "object" || value === null || seen.has(value)) return out;
  seen.add(value);
  out.push(value);
  for (const child of Object.values(value)) containers(child, out, seen);
  return out;
}

describe("matchesSnapshot (the wrap onion's allocation-free check)", () => {
  it("agrees with comparing two fingerprints, for unchanged values and for any in-place edit", () => {
    fc.assert(
      fc.property(data, fc.nat(), fc.oneof(fc.constant("set"), fc.constant("add"), fc.constant("delete"), fc.constant("same")), (value, pick, edit) => {
        const root = { value };
        // A shared subtree and a cycle: both must be walked once, as `snapshot` does.
        (root as Record<string, unknown>).again = value;
        (root as Record<string, unknown>).self = root;
        const print = snapshot(root);
        expect(matchesSnapshot(root, print)).toBe(true);
        const all = containers(root);
        const target = all[pick % all.length] as Record<string, unknown>;
        const keys = Object.keys(target);
        if (edit === "set" && keys.length > 0) target[keys[pick % keys.length]!] = { replaced: pick };
        if (edit === "add") target[`new${pick}`] = pick;
        if (edit === "delete" && keys.length > 0) delete target[keys[pick % keys.length]!];
        if (edit === "same" && keys.length > 0) target[keys[0]!] = target[keys[0]!];
        expect(matchesSnapshot(root, print)).toBe(sameSnapshot(print, snapshot(root)));
      }),
      { numRuns: 300 },
    );
  });

  it("sees an edit deep inside a message (a tool call's argument) and a swapped leaf of the same length", () => {
    const message = new AIMessage({ content: "x", tool_calls: [{ id: "c1", name: "t", args: { n: 1 } }] });
    const print = snapshot(message);
    expect(matchesSnapshot(message, print)).toBe(true);
    message.tool_calls![0]!.args.n = 2;
    expect(matchesSnapshot(message, print)).toBe(false);
    message.tool_calls![0]!.args.n = 1;
    expect(matchesSnapshot(message, print)).toBe(true);
    expect(matchesSnapshot({ a: 1 }, snapshot({ a: 1, b: 2 }))).toBe(false);
    expect(matchesSnapshot({ a: 1, b: 2 }, snapshot({ a: 1 }))).toBe(false);
  });
});

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
