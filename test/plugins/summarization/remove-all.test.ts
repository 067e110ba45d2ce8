import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { Overwrite, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { WorkingChannels, messagesDelta } from "../../../kernel/loop/working-channels.js";
import { messageText } from "../../../kernel/loop/message-meta.js";

/**
 * Summarization replaces the history with `[RemoveMessage(REMOVE_ALL_MESSAGES), ...newList]`
 * so its summary lands before the kept tail. The kernel's working copy must apply that
 * through LangGraph's reducer and hand LangGraph a full overwrite (a delta cannot express
 * a new message placed before kept ones).
 */
describe("WorkingChannels with a REMOVE_ALL_MESSAGES replacement", () => {
  const composition = compose({ name: "t", plugins: [] });
  const system = new SystemMessage({ content: "s", id: "s" });
  const old = [system, new HumanMessage({ content: "u1", id: "u1" }), new AIMessage({ content: "a1", id: "a1" }), new HumanMessage({ content: "u2", id: "u2" }), new AIMessage({ content: "a2", id: "a2" })];
  const summary = new HumanMessage({ content: "summary", id: "sum" });
  const texts = (messages: BaseMessage[]) => messages.map(messageText);

  it("replaces the list, summary before the tail, and overwrites the channel", () => {
    const local = new WorkingChannels(composition, { messages: old });
    local.apply({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), system, summary, old[3]!, old[4]!] });
    expect(texts(local.get<BaseMessage[]>("messages"))).toEqual(["s", "summary", "u2", "a2"]);

    // A later plain append (the model's response) still lands at the end.
    local.apply({ messages: [new AIMessage({ content: "a3", id: "a3" })] });
    const change = local.changes().messages;
    expect(change).toBeInstanceOf(Overwrite);
    expect(texts((change as Overwrite<BaseMessage[]>).value)).toEqual(["s", "summary", "u2", "a2", "a3"]);
  });

  it("messagesDelta gives up (null → overwrite) when a new message precedes kept ones, and is a plain delta otherwise", () => {
    expect(messagesDelta(old, [system, summary, old[3]!, old[4]!])).toBeNull();
    const delta = messagesDelta(old, [system, old[3]!, old[4]!, summary])!;
    expect(delta.filter((m) => RemoveMessage.isInstance(m)).map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(delta.filter((m) => !RemoveMessage.isInstance(m)).map((m) => m.id)).toEqual(["sum"]);
  });
});
