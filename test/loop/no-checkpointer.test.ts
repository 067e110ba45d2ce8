import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { runWith, tool, toolsPlugin } from "./harness.js";

const echo = toolsPlugin(tool("echo", (args) => `echo:${JSON.stringify(args)}`));
const script = { turns: [{ toolCalls: [{ name: "echo", args: { n: 1 } }] }, { toolCalls: [{ name: "echo", args: { n: 2 } }] }, { content: "done", usage: { input_tokens: 7, output_tokens: 1 } }] };

describe("a runtime without a checkpointer (checkpointer: false)", () => {
  it("gives the same result as with the default checkpointer", async () => {
    const saved = await runWith([echo], script);
    const bare = await runWith([echo], script, { runtime: { checkpointer: false } });
    expect(bare.outcome).toEqual(saved.outcome);
    expect(bare.turns).toBe(3);
    expect(bare.usage).toEqual(saved.usage);
    expect(bare.messages.map((m) => [m.getType(), m.id, m.content])).toEqual(saved.messages.map((m) => [m.getType(), m.id, m.content]));
    expect(Object.keys(bare.values).sort()).toEqual(Object.keys(saved.values).sort());
  });

  it("starts every run on a new thread and has no state to read back", async () => {
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [echo] }), {
      model: new ScriptedChatModel({ script: { turns: [{ content: "one" }, { content: "two" }] } }),
      checkpointer: false,
      systemPrompt: "You are terse.",
    });
    await runtime.run({ threadId: "t", runId: "r1", input: "first" });
    const second = await runtime.run({ threadId: "t", runId: "r2", input: "second" });
    expect(second.outcome).toMatchObject({ status: "succeeded", text: "two" });
    expect(second.messages.map((m) => m.getType())).toEqual(["system", "human", "ai"]);
    expect(await runtime.getState("t")).toEqual({});
  });

  it("reports a cancelled run as cancelled", async () => {
    const controller = new AbortController();
    const slow = toolsPlugin(tool("slow", () => new Promise((resolve) => setTimeout(() => resolve("late"), 50))));
    const pending = runWith([slow], { turns: [{ toolCalls: [{ name: "slow", args: {} }] }, { content: "never" }] }, { signal: controller.signal, runtime: { checkpointer: false } });
    setTimeout(() => controller.abort(), 5);
    const run = await pending;
    expect(run.outcome.status).toBe("cancelled");
  });
});
