import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isCommutativeReducer, reduceChannel } from "../../kernel/channels/reducers.js";

describe("channel reducers", () => {
  it("replace, append and sum", () => {
    expect(reduceChannel("replace", 1, 2)).toBe(2);
    expect(reduceChannel("append", [1], [2, 3])).toEqual([1, 2, 3]);
    expect(reduceChannel("append", undefined, 4)).toEqual([4]);
    expect(reduceChannel("sum", { lead: { a: 1, b: 2 } }, { lead: { a: 2 }, child: { a: 5 } })).toEqual({ lead: { a: 3, b: 2 }, child: { a: 5 } });
  });

  it("append-set dedupes by key fields (or the whole value) and keeps first-seen order", () => {
    const spec = { kind: "append-set" as const, key: ["reason", "by"] };
    const first = reduceChannel(spec, [], [{ reason: "a", by: "x", turn: 1 }]);
    const next = reduceChannel(spec, first, [{ reason: "a", by: "x", turn: 9 }, { reason: "a", by: "y" }, { reason: "b", by: "x" }]);
    expect(next).toEqual([{ reason: "a", by: "x", turn: 1 }, { reason: "a", by: "y" }, { reason: "b", by: "x" }]);
    expect(reduceChannel("append-set", [{ b: 1, a: 2 }], [{ a: 2, b: 1 }, { a: 3 }])).toEqual([{ b: 1, a: 2 }, { a: 3 }]);
  });

  it("a bounded append keeps the newest keepNewest items, in order, and does not commute", () => {
    const spec = { kind: "append" as const, keepNewest: 3 };
    let value = reduceChannel(spec, undefined, [1, 2]);
    expect(value).toEqual([1, 2]);
    value = reduceChannel(spec, value, [3, 4]);
    expect(value).toEqual([2, 3, 4]);
    expect(reduceChannel(spec, value, 5)).toEqual([3, 4, 5]);
    expect(isCommutativeReducer(spec)).toBe(false);
  });

  it("merge-by-id upserts in place, never downgrades a terminal status, keeps the newest N", () => {
    const spec = { kind: "merge-by-id" as const, key: "id", guard: "no-terminal-downgrade" as const, keepNewest: 2 };
    let value = reduceChannel(spec, [], [{ id: "a", status: "in_progress" }, { id: "b", status: "in_progress" }]);
    value = reduceChannel(spec, value, { id: "a", status: "succeeded", brief: "ok" });
    expect(value).toEqual([{ id: "a", status: "succeeded", brief: "ok" }, { id: "b", status: "in_progress" }]);
    value = reduceChannel(spec, value, { id: "a", status: "in_progress" });
    expect((value as Array<{ status: string }>)[0]!.status).toBe("succeeded");
    value = reduceChannel(spec, value, { id: "c", status: "failed" });
    expect((value as Array<{ id: string }>).map((e) => e.id)).toEqual(["b", "c"]);
  });

  it("messages uses LangGraph's reducer: merge by id and removal", () => {
    const a = new HumanMessage({ content: "a", id: "1" });
    const b = new AIMessage({ content: "b", id: "2" });
    const merged = reduceChannel("messages", [a], [b, new AIMessage({ content: "b2", id: "2" })]) as Array<{ content: string }>;
    expect(merged.map((m) => m.content)).toEqual(["a", "b2"]);
    expect((reduceChannel("messages", merged, [new RemoveMessage({ id: "1" })]) as unknown[]).length).toBe(1);
  });

  it("only append-set and sum commute", () => {
    expect(["replace", "append", "append-set", "sum"].map((r) => isCommutativeReducer(r as never))).toEqual([false, false, true, true]);
    expect(isCommutativeReducer({ kind: "merge-by-id", key: "id" })).toBe(false);
  });
});
