import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer, Overwrite, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldMessages, foldMessagesFully, isFreshAppend, messageIndex, scanMessages, type MessageFold } from "../../kernel/channels/message-index.js";
import { reduceChannel } from "../../kernel/channels/reducers.js";
import { compose } from "../../kernel/compose/index.js";
import { WorkingChannels } from "../../kernel/loop/working-channels.js";

/**
 * The messages channel's incremental bookkeeping (append fast path, id/tool-result index,
 * cached folds, the working copy's append-only update) must never drift from a full
 * recomputation, whatever mix of appends, replacements, removals and wholesale
 * replacements a history goes through.
 */

type Op =
  | { kind: "append"; count: number; tool: boolean }
  | { kind: "replace"; pick: number }
  | { kind: "remove"; pick: number }
  | { kind: "removeAll"; keep: number }
  | { kind: "again" }; // reduce the previous history again with the same update (LangGraph's second reduction)

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("append" as const), count: fc.integer({ min: 0, max: 3 }), tool: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replace" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("removeAll" as const), keep: fc.nat({ max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "again" as const }) },
);

let seq = 0;
function fresh(tool: boolean, calls: string[]): BaseMessage {
  const n = ++seq;
  if (tool && calls.length > 0) return new ToolMessage({ id: `t${n}`, tool_call_id: calls[n % calls.length]!, content: `result ${n}` });
  if (n % 3 === 0) return new AIMessage({ id: `a${n}`, content: `answer ${n}`, tool_calls: [{ id: `c${n}`, name: "x", args: { n } }], usage_metadata: { input_tokens: n, output_tokens: 1, total_tokens: n + 1 } });
  return new HumanMessage({ id: `h${n}`, content: "x".repeat(n % 7) });
}

function updateFor(o: Op, history: readonly BaseMessage[]): BaseMessage[] {
  const calls = history.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id!) : []));
  if (o.kind === "append") return Array.from({ length: o.count }, () => fresh(o.tool, calls));
  if (history.length === 0) return [fresh(false, calls)];
  const target = history[(o as { pick: number }).pick % history.length]!;
  if (o.kind === "replace") return [new HumanMessage({ id: target.id!, content: `replaced ${++seq}` })];
  if (o.kind === "remove") return [new RemoveMessage({ id: target.id! })];
  return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...history.slice(-(o as { keep: number }).keep)];
}

/** chars and the newest AI message: a fold shaped like summarization's running totals. */
const totals: MessageFold<{ chars: number; lastAi: number }> = {
  init: () => ({ chars: 0, lastAi: -1 }),
  step: (s, m, i) => ({ chars: s.chars + String(m.content).length, lastAi: AIMessage.isInstance(m) ? i : s.lastAi }),
};

function expectIndexMatchesScan(history: readonly BaseMessage[]): void {
  const incremental = messageIndex(history);
  const scanned = scanMessages(history);
  expect(incremental.positions === null ? null : [...incremental.positions].sort()).toEqual(scanned.positions === null ? null : [...scanned.positions].sort());
  expect([...incremental.toolResults].sort()).toEqual([...scanned.toolResults].sort());
  expect(foldMessages(history, totals)).toEqual(foldMessagesFully(history, totals));
}

const ids = (list: readonly BaseMessage[]) => list.map((m) => m.id);

describe("messages channel: incremental index and append fast path", () => {
  it("the reducer gives what LangGraph's messages reducer gives, and the index and folds equal a full scan, after any sequence", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let history: BaseMessage[] = [];
        let previous: { history: BaseMessage[]; update: BaseMessage[] } | null = null;
        for (const o of ops) {
          if (o.kind === "again" && previous) {
            const again = reduceChannel("messages", previous.history, previous.update) as BaseMessage[];
            expect(again).toEqual(history);
            continue;
          }
          const update = updateFor(o, history);
          const expected = messagesStateReducer([...history], [...update]);
          // Fold and index states exist before the step, so they must be carried (or rebuilt), not recomputed by luck.
          foldMessages(history, totals);
          const next = reduceChannel("messages", history, update) as BaseMessage[];
          expect(ids(next)).toEqual(ids(expected));
          expect(next.every((m, i) => m === expected[i])).toBe(true);
          previous = { history, update };
          history = next;
          expectIndexMatchesScan(history);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a node's update (appends only, or a delta) reduced against the history it started from gives the working copy's messages", () => {
    const composition = compose({ name: "t", plugins: [] });
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 5 }), { maxLength: 12 }), (steps) => {
        let history: BaseMessage[] = [];
        for (const step of steps) {
          const local = new WorkingChannels(composition, { messages: history }, false);
          for (const o of step) if (o.kind !== "again") local.apply({ messages: updateFor(o, local.get<BaseMessage[]>("messages")) });
          const update = local.changes().messages;
          const working = local.get<BaseMessage[]>("messages");
          const reduced = update === undefined ? history : update instanceof Overwrite ? (update.value as BaseMessage[]) : (reduceChannel("messages", history, update) as BaseMessage[]);
          expect(ids(reduced)).toEqual(ids(working));
          expect(reduced.every((m, i) => m === working[i])).toBe(true);
          for (const m of reduced) if (ToolMessage.isInstance(m)) expect(local.hasToolResult(m.tool_call_id)).toBe(true);
          expect(local.hasToolResult("never-called")).toBe(false);
          history = reduced;
          expectIndexMatchesScan(history);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("an update is a fresh append only with ids new to the history and to the update itself, one message or several", () => {
    const taken = new Set(["h1"]);
    const isTaken = (id: string) => taken.has(id);
    expect(isFreshAppend([new AIMessage({ id: "a1", content: "" })], isTaken)).toBe(true);
    expect(isFreshAppend([new AIMessage({ id: "h1", content: "" })], isTaken)).toBe(false);
    expect(isFreshAppend([new AIMessage({ content: "" })], isTaken)).toBe(false);
    expect(isFreshAppend([new AIMessage({ id: "a1", content: "" }), new ToolMessage({ id: "t1", tool_call_id: "c1", content: "ok" })], isTaken)).toBe(true);
    expect(isFreshAppend([new AIMessage({ id: "a1", content: "" }), new ToolMessage({ id: "a1", tool_call_id: "c1", content: "ok" })], isTaken)).toBe(false);
    expect(isFreshAppend([new RemoveMessage({ id: "h1" })], isTaken)).toBe(false);
  });

  it("a history restored without its index (a checkpoint) is scanned once and then kept incrementally", () => {
    const restored = [new HumanMessage({ id: "u1", content: "go" }), new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "x", args: {} }] })];
    expect(messageIndex(restored).toolResults.has("c1")).toBe(false);
    const next = reduceChannel("messages", restored, [new ToolMessage({ id: "t1", tool_call_id: "c1", content: "ok" })]) as BaseMessage[];
    expect(messageIndex(next).toolResults.has("c1")).toBe(true);
    expect(messageIndex(next).positions?.get("t1")).toBe(2);
    // A duplicate id is not an append: the full reducer replaces the message in place.
    const replaced = reduceChannel("messages", next, [new HumanMessage({ id: "u1", content: "again" })]) as BaseMessage[];
    expect(replaced.map((m) => m.content)).toEqual(["again", "", "ok"]);
  });
});
