import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reduceChannel } from "../../../kernel/channels/reducers.js";
import { estimateTokensByScan } from "../../../plugins/summarization/estimate-tokens.js";
import { estimateTokens, messageChars } from "../../../plugins/summarization/index.js";

const withUsage = (id: string, input: number, output = 0) =>
  new AIMessage({ id, content: "", usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output } });

describe("estimateTokens", () => {
  it("counts ⌈characters / 4⌉ of text and tool-call names and arguments", () => {
    const call = new AIMessage({ content: "ab", tool_calls: [{ id: "c", name: "read_file", args: { path: "a" }, type: "tool_call" }] });
    expect(messageChars(call)).toBe(2 + "read_file".length + '{"path":"a"}'.length);
    expect(estimateTokens([new HumanMessage("x".repeat(10))], null)).toBe(3);
  });

  it("uses the newest reported usage plus the messages after it when that is larger", () => {
    const messages = [new HumanMessage("x".repeat(40)), withUsage("a1", 5000, 100), new ToolMessage({ content: "y".repeat(400), tool_call_id: "c" })];
    expect(estimateTokens(messages, null)).toBe(5100 + 100);
  });

  it("ignores usage reported before the last compaction (it measured the longer history)", () => {
    const messages = [new HumanMessage({ content: "summary", id: "m" }), withUsage("a1", 90000), new ToolMessage({ content: "y".repeat(40), tool_call_id: "c", id: "t1" })];
    expect(estimateTokens(messages, "t1")).toBe(Math.ceil((7 + 40) / 4));
    // A newer response counts again.
    expect(estimateTokens([...messages, withUsage("a2", 3000)], "t1")).toBe(3000);
    // The compaction point is gone: reported usage is not trusted.
    expect(estimateTokens(messages, "missing")).toBe(Math.ceil((7 + 40) / 4));
  });
});

describe("estimateTokens from running totals", () => {
  it("equals the full scan after any sequence of appends and compactions, for any cut marker", () => {
    let seq = 0;
    const message = (kind: number, usage: number) => {
      const n = ++seq;
      if (kind === 0) return new HumanMessage({ id: `h${n}`, content: "u".repeat(n % 11) });
      if (kind === 1) return new ToolMessage({ id: `t${n}`, tool_call_id: `c${n}`, content: "r".repeat(n % 5) });
      return new AIMessage({ id: `a${n}`, content: "a".repeat(n % 3), tool_calls: kind === 3 ? [{ id: `c${n}`, name: "read_file", args: { path: "p".repeat(n % 4) } }] : [], usage_metadata: { input_tokens: usage, output_tokens: usage ? 2 : 0, total_tokens: usage + 2 } });
    };
    const step = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.integer({ min: 0, max: 3 }), usage: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })) }) },
      { weight: 1, arbitrary: fc.record({ keep: fc.nat({ max: 5 }) }) },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.nat(), fc.boolean(), (steps, pick, missing) => {
        let history: BaseMessage[] = [];
        for (const s of steps) {
          const update = "keep" in s ? [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...history.slice(-s.keep)] : [message(s.kind, s.usage)];
          history = reduceChannel("messages", history, update) as BaseMessage[];
          const cut = missing ? "gone" : history.length ? history[pick % history.length]!.id! : null;
          for (const at of [null, cut]) expect(estimateTokens(history, at)).toBe(estimateTokensByScan(history, at));
        }
      }),
      { numRuns: 300 },
    );
  });
});
