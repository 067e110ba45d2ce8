/** The differential suite's comparison (compare.ts): masking, the walk, and the verdict. */
import { describe, expect, it } from "vitest";
import { diff, judge, mask } from "./compare.js";

describe("differential comparison", () => {
  it("masks uuids, ISO timestamps and id keys, also inside strings", () => {
    expect(mask({ thread_id: "0b0b8c3a-1f5e-4a7b-9c1d-2e3f4a5b6c7d", at: "2026-12-01T18:00:00.123Z", id: "run-7", path: "/threads/0b0b8c3a-1f5e-4a7b-9c1d-2e3f4a5b6c7d/runs", n: 3 })).toEqual({
      thread_id: "<id>",
      at: "<time>",
      id: "<id>",
      path: "/threads/<id>/runs",
      n: 3,
    });
  });

  it("reports each difference with its pointer and kind", () => {
    expect(diff({ a: 1, b: [1, 2], c: "x", d: { e: 1 } }, { a: 2, b: [1], c: null, f: true })).toEqual([
      { pointer: "/a", kind: "value", keel: 1, langgraph: 2 },
      { pointer: "/b/1", kind: "keel-only", keel: 2 },
      { pointer: "/c", kind: "type", keel: "x", langgraph: null },
      { pointer: "/d", kind: "keel-only", keel: { e: 1 } },
      { pointer: "/f", kind: "langgraph-only", langgraph: true },
    ]);
  });

  it("covers differences at or below an expected pointer (`*` one segment), and reports the unexplained and the stale", () => {
    const differences = diff({ v: { x: 1, m: [{ k: 1 }, { k: 2 }] }, z: 1 }, { v: { m: [{}, {}] } });
    expect(judge(differences, [{ pointer: "/v/x", id: "D1" }, { pointer: "/v/m/*/k", id: "D2" }, { pointer: "/gone", id: "D3" }])).toEqual({
      unexpected: [{ pointer: "/z", kind: "keel-only", keel: 1 }],
      stale: [{ pointer: "/gone", id: "D3" }],
    });
  });
});
