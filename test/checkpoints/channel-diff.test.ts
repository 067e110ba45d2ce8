/**
 * How the saver finds what a channel's list changed from its parent: by element identity
 * (`channel-diff.ts`). Appends, a window dropping items from the front and a replaced tail
 * are splices of the new items; anything else is the whole value.
 */
import { describe, expect, it } from "vitest";
import { applySplice, diffValue } from "../../plugins/store-sql/checkpoints/channel-diff.js";

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

describe("diffValue", () => {
  it("splices appended items, a window's dropped front and a replaced tail, and rebuilds the child from them", () => {
    const parent = items(5);
    const appended = [...parent, { i: 5 }];
    const windowed = [...parent.slice(2), { i: 5 }];
    const tail = [...parent.slice(0, 3), { i: 9 }];
    for (const child of [appended, windowed, tail]) {
      const change = diffValue(parent, child);
      expect(change.op).toBe("splice");
      if (change.op !== "splice") continue;
      expect(applySplice(parent, change.from, change.keep, change.items)).toEqual(child);
      expect(change.items.length).toBeLessThan(child.length);
    }
    expect(diffValue(parent, windowed)).toMatchObject({ from: 2, keep: 5 });
    expect(diffValue(parent, tail)).toMatchObject({ from: 0, keep: 3, items: [{ i: 9 }] });
  });

  it("stores the whole value when an element in the middle changed or nothing is shared", () => {
    const parent = items(4);
    const middle = [parent[0], { i: 1 }, parent[2], parent[3]];
    const change = diffValue(parent, middle);
    // Only the first element is kept: the rest (three of four) is new again.
    expect(change).toMatchObject({ op: "splice", from: 0, keep: 1 });
    expect(diffValue(parent, items(4))).toEqual({ op: "set", value: expect.any(Array) });
    expect(diffValue(parent, parent)).toEqual({ op: "same" });
    expect(diffValue(parent, [...parent])).toEqual({ op: "same" });
  });

  it("stores nothing for an empty list that stays empty, and the whole value when a list empties or fills", () => {
    // LangGraph checkpoints a new `[]` of `__pregel_tasks` every step: no value row for it.
    expect(diffValue([], [])).toEqual({ op: "same" });
    expect(diffValue(items(2), [])).toEqual({ op: "set", value: [] });
    expect(diffValue([], items(2))).toEqual({ op: "set", value: expect.any(Array) });
  });

  it("treats a hole and an undefined element alike, as serialization does", () => {
    const first = { i: 0 };
    // eslint-disable-next-line no-sparse-arrays
    const parent = [first, , { i: 2 }];
    const child = [first, undefined, parent[2], { i: 3 }];
    expect(diffValue(parent, child)).toMatchObject({ op: "splice", from: 0, keep: 3, items: [{ i: 3 }] });
  });
});
