import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";

const echo = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: (args) => `echo:${JSON.stringify(args)}` }],
});

describe("loop smoke", () => {
  it("runs tool calls then answers", async () => {
    const composition = compose({ name: "t", plugins: [echo] });
    const model = new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "echo", args: { a: 1 } }] }, { content: "Done." }] } });
    const runtime = createAgentRuntime(composition, { model });
    const result = await runtime.run({ threadId: "t1", runId: "r1", input: "hi" });
    expect(result.outcome.status).toBe("succeeded");
    expect(result.outcome.text).toBe("Done.");
    expect(result.turns).toBe(2);
    expect(result.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(result.messages[2]!.content).toBe('echo:{"a":1}');
  });
});
