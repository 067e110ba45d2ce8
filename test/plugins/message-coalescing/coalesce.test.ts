import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isHidden, keelMeta, messageText } from "../../../kernel/loop/message-meta.js";
import { coalesceMessages, DANGLING_RESULT, OPENING_PLACEHOLDER } from "../../../plugins/message-coalescing/index.js";
import { providerViolation } from "./provider-valid.js";

const ai = (id: string, calls: string[] = [], text = "") => new AIMessage({ id, content: text, tool_calls: calls.map((c) => ({ id: c, name: "read_file", args: { path: `${c}.md` }, type: "tool_call" as const })) });
const tool = (callId: string, text = `result ${callId}`) => new ToolMessage({ content: text, tool_call_id: callId, name: "read_file" });
const hidden = (text: string) => {
  const m = new HumanMessage(text);
  m.additional_kwargs = { keel: { hidden: true } };
  return m;
};
const shape = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${messageText(m)}`);

describe("coalesceMessages", () => {
  it("leaves a valid request as it is and reports no repair", () => {
    const input = [new SystemMessage("sys"), new HumanMessage("go"), ai("a1", ["c1", "c2"]), tool("c1"), tool("c2"), ai("a2", [], "done")];
    const { messages, repairs } = coalesceMessages(input);
    expect(messages).toEqual(input);
    expect(messages[0]).toBe(input[0]);
    expect(repairs).toEqual({ mergedSystemParts: 0, movedResults: 0, droppedOrphans: 0, danglingCalls: 0, placeholder: false });
  });

  it("merges every system part, wherever it is, in order into one leading message", () => {
    const { messages, repairs } = coalesceMessages([new SystemMessage("base"), new HumanMessage("go"), new SystemMessage("late part"), ai("a1", [], "ok")]);
    expect(shape(messages)).toEqual(["system:base\n\nlate part", "human:go", "ai:ok"]);
    expect(repairs.mergedSystemParts).toBe(2);
  });

  it("merges block content without losing blocks", () => {
    const cached = new SystemMessage({ content: [{ type: "text", text: "cached", cache_control: { type: "ephemeral" } }] });
    const { messages } = coalesceMessages([cached, new SystemMessage("more"), new HumanMessage("go")]);
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "cached", cache_control: { type: "ephemeral" } },
      { type: "text", text: "more" },
    ]);
  });

  it("moves results up past injected messages so they follow their call", () => {
    const { messages, repairs } = coalesceMessages([new HumanMessage("go"), ai("a1", ["c1", "c2"]), tool("c1"), hidden("[LOOP WARNING] x"), tool("c2")]);
    expect(shape(messages)).toEqual(["human:go", "ai:", "tool:result c1", "tool:result c2", "human:[LOOP WARNING] x"]);
    expect(repairs.movedResults).toBe(1);
    expect(providerViolation(messages)).toBeNull();
  });

  it("answers a dangling call with a synthetic error result and drops orphans and duplicates", () => {
    const { messages, repairs } = coalesceMessages([tool("gone"), new HumanMessage("go"), ai("a1", ["c1", "c2"]), tool("c2"), tool("c2", "again"), new HumanMessage("next")]);
    expect(shape(messages)).toEqual(["human:go", "ai:", `tool:${DANGLING_RESULT}`, "tool:result c2", "human:next"]);
    const synthetic = messages[2] as ToolMessage;
    expect([synthetic.tool_call_id, synthetic.status, synthetic.name, isHidden(synthetic), keelMeta(synthetic).synthetic]).toEqual(["c1", "error", "read_file", true, "dangling_tool_call"]);
    expect(repairs).toMatchObject({ danglingCalls: 1, droppedOrphans: 2 });
  });

  it("puts a hidden user placeholder first when the conversation opens with an assistant message", () => {
    const { messages, repairs } = coalesceMessages([new SystemMessage("sys"), ai("a1", ["c1"]), tool("c1"), new HumanMessage("go on")]);
    expect(shape(messages)).toEqual(["system:sys", `human:${OPENING_PLACEHOLDER}`, "ai:", "tool:result c1", "human:go on"]);
    expect(isHidden(messages[1]!)).toBe(true);
    expect(repairs.placeholder).toBe(true);
  });

  it("does not invent a system message when there is none", () => {
    const { messages } = coalesceMessages([new HumanMessage("go")]);
    expect(shape(messages)).toEqual(["human:go"]);
  });

  it("never edits the messages it was given", () => {
    const input = [new HumanMessage("go"), ai("a1", ["c1"]), new SystemMessage("s")];
    const before = shape(input);
    coalesceMessages(input);
    expect(shape(input)).toEqual(before);
    expect(input).toHaveLength(3);
  });
});
