import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isHidden, keelMeta, messageText, setKeelMeta } from "../../../kernel/loop/message-meta.js";
import { AUTHORITY_CONTRACT, clipMiddle, DATA_CLOSE, DATA_OPEN, durableDataText, projectDurableContext, SUMMARY_POINTER, SUMMARY_TITLE } from "../../../plugins/durable-context/index.js";

const shape = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}${isHidden(m) ? "(hidden)" : ""}`);

describe("projectDurableContext", () => {
  const data = durableDataText("the summary", "## Work already delegated\n- [succeeded] x (via y; reuse this result)")!;

  it("wraps the sections in the data tag", () => {
    expect(data).toBe(`${DATA_OPEN}\n${SUMMARY_TITLE}\nthe summary\n\n## Work already delegated\n- [succeeded] x (via y; reuse this result)\n${DATA_CLOSE}`);
    expect(durableDataText("", "")).toBeNull();
  });

  it("appends the authority contract to the leading system message and puts the data right after it", () => {
    const system = new SystemMessage({ content: "You are Keel.", id: "sys" });
    const input = [system, new HumanMessage("go"), new AIMessage("ok")];
    const out = projectDurableContext(input, data, true);
    expect(shape(out)).toEqual(["system", "human(hidden)", "human", "ai"]);
    expect(messageText(out[0]!)).toBe(`You are Keel.\n\n${AUTHORITY_CONTRACT}`);
    expect(out[0]!.id).toBe("sys");
    expect(messageText(out[1]!)).toBe(data);
    // The thread's own messages are untouched.
    expect(messageText(system)).toBe("You are Keel.");
    expect(input).toHaveLength(3);
  });

  it("says completed means execution ended, and does not tell the model to reuse every succeeded entry as is", () => {
    expect(AUTHORITY_CONTRACT).toContain("Completed means execution ended, not task acceptance");
    expect(AUTHORITY_CONTRACT).toContain("retain the useful work and repair only the remaining gaps");
    // The old wording forbade any further work on a succeeded entry, contradicting the gap guidance.
    expect(AUTHORITY_CONTRACT).not.toContain("in progress or succeeded;");
  });

  it("creates the system message when the request has none", () => {
    const out = projectDurableContext([new HumanMessage("go")], data, false);
    expect(shape(out)).toEqual(["system", "human(hidden)", "human"]);
    expect(messageText(out[0]!)).toBe(AUTHORITY_CONTRACT);
  });

  it("appends to block content as a text block", () => {
    const out = projectDurableContext([new SystemMessage({ content: [{ type: "text", text: "base" }] }), new HumanMessage("go")], data, false);
    expect(out[0]!.content).toEqual([{ type: "text", text: "base" }, { type: "text", text: AUTHORITY_CONTRACT }]);
  });

  it("shortens summarization's summary message to a pointer only while it shows the summary", () => {
    const marker = setKeelMeta(new HumanMessage({ content: "[Summary of the earlier conversation]\nlong text", id: "m1" }), { hidden: true, summaryMarker: { compaction: 1, replaced: 4 } });
    const shown = projectDurableContext([marker, new AIMessage("ok")], data, true);
    expect(messageText(shown[2]!)).toBe(SUMMARY_POINTER);
    expect([shown[2]!.id, isHidden(shown[2]!), keelMeta(shown[2]!).summaryMarker]).toEqual(["m1", true, { compaction: 1, replaced: 4 }]);
    expect(messageText(marker)).toContain("long text");
    const notShown = projectDurableContext([marker], data, false);
    expect(notShown[2]).toBe(marker);
  });
});

describe("clipMiddle", () => {
  it("keeps two thirds of the head and a third of the tail around the marker", () => {
    const text = "a".repeat(100) + "b".repeat(100);
    const clipped = clipMiddle(text, 65);
    expect(clipped).toHaveLength(65);
    expect(clipped).toBe(`${"a".repeat(40)}\n...\n${"b".repeat(20)}`);
    expect(clipMiddle("short", 65)).toBe("short");
  });
});
