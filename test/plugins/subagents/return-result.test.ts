import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { findReturn, returnArgsProblems, returnResultTool } from "../../../plugins/subagents/return-result.js";
import { parseTaskArgs } from "../../../plugins/subagents/task-tool.js";

const toolCtx = {} as never;

describe("return_result", () => {
  it("accepts valid arguments and rejects invalid ones with an error result the child can act on", async () => {
    expect(await returnResultTool.invoke({ status: "succeeded", text: "ok" }, toolCtx)).toBe("Result recorded; your run ends now.");
    const rejected = await returnResultTool.invoke({ status: "done", text: "ok", extra: 1 }, toolCtx);
    expect(rejected).toEqual({
      content: "return_result rejected: /extra: unknown property `extra`; /status: must be equal to one of the allowed values. Fix the arguments and call return_result again.",
      status: "error",
    });
    expect(returnArgsProblems({ status: "partial", text: "x", verification: { type: "rows", expected: 1 } })).toEqual(["/verification/found: missing required property `found`"]);
  });

  it("finds the last call that got a successful result, ignoring rejected ones", () => {
    const first = new AIMessage({ content: "", tool_calls: [{ id: "a", name: "return_result", args: { status: "succeeded", text: "first" } }] });
    const second = new AIMessage({ content: "", tool_calls: [{ id: "b", name: "return_result", args: { status: "bogus", text: "second" } }] });
    const messages = [
      first,
      new ToolMessage({ tool_call_id: "a", content: "Result recorded", status: "success" }),
      second,
      new ToolMessage({ tool_call_id: "b", content: "rejected", status: "error" }),
    ];
    expect(findReturn(messages)).toEqual({ args: { status: "succeeded", text: "first" }, message: first });
    expect(findReturn(messages.slice(0, 1))).toBeNull();
  });
});

describe("task arguments", () => {
  it("requires description, prompt and subagentType, and an outputSchema that compiles", () => {
    expect(parseTaskArgs({ description: "d", prompt: "p", subagentType: "general-purpose" })).toMatchObject({ ok: true });
    expect(parseTaskArgs({ description: "d", subagentType: "x" })).toEqual({ ok: false, problem: "/prompt: missing required property `prompt`" });
    const broken = parseTaskArgs({ description: "d", prompt: "p", subagentType: "x", outputSchema: { type: "no-such-type" } });
    expect(broken.ok).toBe(false);
    expect((broken as { problem: string }).problem.startsWith("/outputSchema: does not compile as JSON Schema")).toBe(true);
  });
});
