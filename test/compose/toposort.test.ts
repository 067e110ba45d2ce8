import toposort from "toposort";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OrderingGraph } from "../../kernel/compose/graph.js";
import { sortStable } from "../../kernel/compose/toposort.js";

/** An ordering graph from `[before, after]` name pairs. */
function graphOf(names: string[], pairs: Array<[string, string]>): OrderingGraph {
  const ids = new Map(names.map((name, id) => [name, id] as const));
  const succ: number[][] = names.map(() => []);
  for (const [before, after] of pairs) succ[ids.get(before)!]!.push(ids.get(after)!);
  return {
    names,
    ids,
    succ,
    edges: pairs.map(([before, after]) => ({ before, after, reason: `${after} requiresBefore ${before}` })),
    reasons: (u, v) => [`${names[v]} requiresBefore ${names[u]}`],
  };
}

afterEach(() => vi.restoreAllMocks());

describe("sortStable: one cycle decision", () => {
  it("asks the toposort package once, and Kahn's stable order stands on an acyclic graph", () => {
    const decide = vi.spyOn(toposort, "array");
    const sorted = sortStable(graphOf(["c", "b", "a"], [["a", "c"]]));
    expect(decide).toHaveBeenCalledTimes(1);
    expect(sorted.order).toEqual([1, 2, 0]); // b, a, c: the stable order
    expect(sorted.cycles).toEqual([]);
  });

  it("a cycle is found where the toposort package says there is one, and its path comes from the search", () => {
    const decide = vi.spyOn(toposort, "array");
    const sorted = sortStable(graphOf(["a", "b", "c", "d"], [["a", "b"], ["b", "c"], ["c", "a"]]));
    expect(decide).toHaveBeenCalledTimes(1);
    expect(decide.mock.results[0]!.type).toBe("throw");
    expect(sorted.cycles).toEqual([[0, 1, 2, 0]]);
    expect(sorted.order).toEqual([3]); // only d is placed
    expect([...sorted.placed]).toEqual([0, 0, 0, 1]);
  });

  it("what the package decides is final: told acyclic, no cycle is reported even though Kahn left nodes out", () => {
    vi.spyOn(toposort, "array").mockImplementation((nodes) => nodes);
    const sorted = sortStable(graphOf(["a", "b"], [["a", "b"], ["b", "a"]]));
    expect(sorted.order).toEqual([]);
    expect(sorted.cycles).toEqual([]);
  });

  it("the package decides a 20,000-plugin chain listed backwards without running out of stack (it gets Kahn's order)", () => {
    const decide = vi.spyOn(toposort, "array");
    const n = 20_000;
    const names = Array.from({ length: n }, (_, i) => `p${i}`);
    // p(i+1) before p(i): listed in the order the package would recurse through end to end.
    const pairs = names.slice(1).map((name, i): [string, string] => [name, names[i]!]);
    const sorted = sortStable(graphOf(names, pairs));
    expect(decide.mock.results[0]!.type).toBe("return");
    expect(sorted.cycles).toEqual([]);
    expect(sorted.order[0]).toBe(n - 1);
    expect(sorted.order.at(-1)).toBe(0);
  });
});
