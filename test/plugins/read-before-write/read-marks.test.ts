import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { setKeelMeta } from "../../../kernel/loop/message-meta.js";
import { newestReadMark, readMarkOf } from "../../../plugins/read-before-write/index.js";

function toolResult(id: string, mark?: unknown) {
  const message = new ToolMessage({ content: "text", tool_call_id: id, name: "read_file" });
  if (mark !== undefined) setKeelMeta(message, { readMark: mark });
  return message;
}

describe("read marks", () => {
  it("are read from tool results only", () => {
    expect(readMarkOf(toolResult("c1", { path: "a.md", sha256: "aa" }))).toEqual({ path: "a.md", sha256: "aa" });
    const ai = setKeelMeta(new AIMessage("x"), { readMark: { path: "a.md", sha256: "aa" } });
    const human = setKeelMeta(new HumanMessage("x"), { readMark: { path: "a.md", sha256: "aa" } });
    expect(readMarkOf(ai)).toBeUndefined();
    expect(readMarkOf(human)).toBeUndefined();
    expect(readMarkOf(toolResult("c2", { path: "a.md" }))).toBeUndefined();
    expect(readMarkOf(toolResult("c3"))).toBeUndefined();
  });

  it("the newest mark for a path wins", () => {
    const messages = [
      toolResult("c1", { path: "a.md", sha256: "old" }),
      toolResult("c2", { path: "b.md", sha256: "bbb" }),
      toolResult("c3", { path: "a.md", sha256: "new" }),
      toolResult("c4"),
    ];
    expect(newestReadMark(messages, "a.md")).toEqual({ path: "a.md", sha256: "new" });
    expect(newestReadMark(messages, "b.md")).toEqual({ path: "b.md", sha256: "bbb" });
    expect(newestReadMark(messages, "c.md")).toBeUndefined();
  });
});
