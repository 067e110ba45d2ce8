import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";

const ask = (model: ScriptedChatModel, text = "abcdefgh") => model.invoke([new HumanMessage(text)]);

describe("ScriptedChatModel (scenario@1)", () => {
  it("generates call ids from the agent path, turn and index", async () => {
    const model = new ScriptedChatModel({ agentPath: "lead/t1", script: { turns: [{ toolCalls: [{ name: "a", args: {} }, { name: "b", id: "given", args: {} }] }] } });
    const out = await ask(model);
    expect(out.tool_calls!.map((c) => c.id)).toEqual(["call_lead_t1_1_1", "given"]);
  });

  it("estimates usage when absent: ⌈request text / 4⌉ in, ⌈(content + JSON of toolCalls) / 4⌉ out", async () => {
    const toolCalls = [{ name: "read_file", args: { path: "a.md" } }];
    const model = new ScriptedChatModel({ script: { turns: [{ content: "hello", toolCalls }] } });
    const out = await ask(model, "x".repeat(9));
    expect(out.usage_metadata).toEqual({ input_tokens: 3, output_tokens: Math.ceil((5 + JSON.stringify(toolCalls).length) / 4), total_tokens: 3 + Math.ceil((5 + JSON.stringify(toolCalls).length) / 4) });
  });

  it("follows `then`: stop answers empty text, repeat-last and repeat-all cycle", async () => {
    const turns = [{ content: "1" }, { content: "2" }];
    const texts = async (then: "stop" | "repeat-last" | "repeat-all") => {
      const model = new ScriptedChatModel({ script: { turns, then } });
      const out: string[] = [];
      for (let i = 0; i < 5; i++) out.push(String((await ask(model)).content));
      return out;
    };
    expect(await texts("stop")).toEqual(["1", "2", "", "", ""]);
    expect(await texts("repeat-last")).toEqual(["1", "2", "2", "2", "2"]);
    expect(await texts("repeat-all")).toEqual(["1", "2", "1", "2", "1"]);
  });

  it("faults fail `times` attempts at a turn without consuming it", async () => {
    const model = new ScriptedChatModel({ script: { turns: [{ content: "a" }, { content: "b" }] }, faults: [{ agent: "lead", turn: 2, times: 2, error: { status: 429, message: "slow down" } }] });
    expect((await ask(model)).content).toBe("a");
    await expect(ask(model)).rejects.toMatchObject({ status: 429, message: "slow down" });
    await expect(ask(model)).rejects.toMatchObject({ status: 429 });
    expect((await ask(model)).content).toBe("b");
    expect(model.turnsAnswered).toBe(2);
  });

  it("a fault names a subagent type (every instance) or one agent path", async () => {
    const fault = { agent: "researcher", turn: 1, error: { message: "down" } };
    const a = new ScriptedChatModel({ agentPath: "lead/t1", agentType: "researcher", script: { turns: [{ content: "x" }] }, faults: [fault] });
    const b = new ScriptedChatModel({ agentPath: "lead/t2", agentType: "writer", script: { turns: [{ content: "y" }] }, faults: [fault] });
    await expect(ask(a)).rejects.toThrow("down");
    expect((await ask(b)).content).toBe("y");
  });

  it("puts the finish reason in the provider's own metadata field", async () => {
    const model = new ScriptedChatModel({ script: { turns: [{ content: "", finishReason: "SAFETY", provider: "gemini" }, { toolCalls: [{ name: "x", args: {} }], provider: "anthropic" }, { content: "ok" }] } });
    expect((await ask(model)).response_metadata.finishReason).toBe("SAFETY");
    expect((await ask(model)).response_metadata.stop_reason).toBe("tool_use");
    expect((await ask(model)).response_metadata.finish_reason).toBe("stop");
  });
});
