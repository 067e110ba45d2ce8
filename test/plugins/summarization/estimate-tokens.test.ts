import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
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
