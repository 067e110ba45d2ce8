import { ToolMessage } from "@langchain/core/messages";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import { argsText, buildReceipt, outputText } from "../../../plugins/receipts/index.js";

const sha16 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);

describe("receipt hashing", () => {
  it("hashes args as canonical JSON with keys sorted at every depth", () => {
    expect(argsText({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: "x" } })).toBe('{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}');
  });

  it("hashes non-object args as {}", () => {
    for (const args of [null, undefined, "text", 3, [1, 2]]) expect(argsText(args)).toBe("{}");
  });

  it("takes string output as is and array content as canonical JSON", () => {
    expect(outputText("hello")).toBe("hello");
    expect(outputText([{ type: "text", text: "a" }, { text: "b", type: "text" }])).toBe('[{"text":"a","type":"text"},{"text":"b","type":"text"}]');
  });

  it("builds a valid receipt@1: 16-hex hashes, UTF-8 byte length, success status", () => {
    const response = new ToolMessage({ content: "héllo ✓", tool_call_id: "c1", status: "success" });
    const receipt = buildReceipt({ id: "r1", toolCall: { id: "c1", name: "write_file", args: { path: "a.md", content: "x" } }, response, createdAt: "2026-01-01T00:00:00.000Z" });
    expect(receipt).toEqual({
      id: "r1",
      toolCallId: "c1",
      tool: "write_file",
      status: "success",
      argsSha256: sha16('{"content":"x","path":"a.md"}'),
      outputSha256: sha16("héllo ✓"),
      bytes: 10,
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(validate("receipt@1", receipt).valid).toBe(true);
  });

  it("has status error when the tool returned an error status or threw (no response)", () => {
    const call = { id: "c1", name: "bash", args: {} };
    const errored = new ToolMessage({ content: "boom", tool_call_id: "c1", status: "error" });
    expect(buildReceipt({ id: "r1", toolCall: call, response: errored, createdAt: "2026-01-01T00:00:00.000Z" }).status).toBe("error");
    const threw = buildReceipt({ id: "r2", toolCall: call, response: null, createdAt: "2026-01-01T00:00:00.000Z" });
    expect(threw).toMatchObject({ status: "error", bytes: 0, outputSha256: sha16("") });
  });
});
