import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { chooseCut } from "../../../plugins/summarization/index.js";

const ai = (calls: string[] = []) => new AIMessage({ content: calls.length ? "" : "text", tool_calls: calls.map((id) => ({ id, name: "read_file", args: {}, type: "tool_call" as const })) });
const tool = (id: string) => new ToolMessage({ content: `r ${id}`, tool_call_id: id });
const types = (messages: BaseMessage[]) => messages.map((m) => m.getType());

describe("chooseCut", () => {
  const history = [new SystemMessage("s"), new HumanMessage("go"), ai(["a", "b", "c"]), tool("a"), tool("b"), tool("c"), ai(["d", "e", "f"]), tool("d"), tool("e"), tool("f")];

  it("keeps the leading system messages out of the summary", () => {
    expect(chooseCut([new SystemMessage("s"), new SystemMessage("t"), new HumanMessage("1"), new HumanMessage("2"), new HumanMessage("3")], 1)).toEqual({ head: 2, start: 4 });
  });

  it("moves the cut back to the assistant message of parallel calls answered in the tail", () => {
    const cut = chooseCut(history, 3)!;
    expect(cut).toEqual({ head: 1, start: 6 });
    expect(types(history.slice(cut.start))).toEqual(["ai", "tool", "tool", "tool"]);
  });

  it("never starts the tail with a tool result, even an orphan one", () => {
    const messages = [new HumanMessage("go"), ai(), tool("orphan"), new HumanMessage("more"), ai()];
    expect(chooseCut(messages, 3)).toEqual({ head: 0, start: 1 });
  });

  it("keeps a call and its result together when the result comes after other messages", () => {
    const messages = [new HumanMessage("go"), ai(["x"]), new HumanMessage("note"), tool("x"), ai()];
    expect(chooseCut(messages, 2)).toEqual({ head: 0, start: 1 });
  });

  it("returns null when the tail would swallow everything after the system messages", () => {
    expect(chooseCut(history, 9)).toBeNull();
    expect(chooseCut(history.slice(0, 6), 5)).toBeNull();
    expect(chooseCut(history.slice(0, 6), 4)).toEqual({ head: 1, start: 2 });
    expect(chooseCut([new SystemMessage("s")], 1)).toBeNull();
  });

  it("every cut of a random-looking history keeps each tool result with its call", () => {
    for (let keep = 1; keep <= history.length; keep++) {
      const cut = chooseCut(history, keep);
      if (!cut) continue;
      const tail = history.slice(cut.start);
      expect(tail.length).toBeGreaterThanOrEqual(keep);
      expect(tail[0]!.getType()).not.toBe("tool");
      const called = new Set(tail.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : [])));
      for (const m of tail) if (ToolMessage.isInstance(m)) expect(called.has(m.tool_call_id)).toBe(true);
    }
  });
});
