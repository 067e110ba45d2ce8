/**
 * A subagent's `custom` events (a plugin's `ctx.emit`) in the parent's stream: under the
 * child's namespace (`custom|tools:<taskToolCallId>`) when the run asked for subgraphs,
 * without a namespace otherwise (LangGraph's writer reaches the parent's stream either way).
 */
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { createChildRunner } from "../../kernel/loop/children.js";
import { RunScope, steppingClock, type StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import subagents from "../../plugins/subagents/index.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { plugin } from "./harness.js";

/** Emits one `custom` event per model step, naming its agent. */
const probe = plugin({ name: "custom-probe" }, { afterModel: async (_state, ctx) => void ctx.emit("custom", { from: ctx.agent }) });

async function customEvents(subgraphs: boolean): Promise<Array<[string, unknown]>> {
  const events: StreamEventRecord[] = [];
  const scope = new RunScope("run-1", "thread-1", steppingClock(0), { event: (e) => events.push(e) }, { modes: ["custom"], subgraphs });
  const agents = createChildRunner({
    composeChild: () => compose({ name: "sub", plugins: [probe] }),
    modelFor: (agentPath, type) => new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "ok" } }] }] }, agentPath, agentType: type }),
    types: ["general-purpose"],
    scopeFor: () => scope,
  });
  const lead = new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "task", id: "t1", args: { description: "d", prompt: "p", subagentType: "general-purpose" } }] }, { content: "done" }] } });
  const runtime = createAgentRuntime(compose({ name: "lead", plugins: [subagents, probe] }), { model: lead, ports: { agents } });
  await runtime.run({ threadId: "thread-1", runId: "run-1", input: "go", scope });
  return events.filter((e) => e.event.startsWith("custom")).map((e) => [e.event, e.data]);
}

describe("a subagent's custom events", () => {
  it("with subgraphs: under the child's namespace; the lead's stay plain", async () => {
    expect(await customEvents(true)).toEqual([
      ["custom", { from: "lead" }],
      ["custom|tools:t1", { from: "lead/t1" }],
      ["custom", { from: "lead" }],
    ]);
  });

  it("without subgraphs: the child's too go out as plain `custom`", async () => {
    expect(await customEvents(false)).toEqual([
      ["custom", { from: "lead" }],
      ["custom", { from: "lead/t1" }],
      ["custom", { from: "lead" }],
    ]);
  });
});
