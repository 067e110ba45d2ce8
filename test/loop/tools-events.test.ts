/**
 * The tools step's `tools` and `events` reports on the loop itself: a tool that throws sends
 * LangGraph's `on_tool_error` (and LangChain's, in `events`), a run that asked for neither
 * sends none of them.
 */
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { RunScope, steppingClock, type StreamEventRecord, type StreamRequest } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { tool, toolsPlugin } from "./harness.js";

async function run(stream: StreamRequest): Promise<StreamEventRecord[]> {
  const explode = tool("explode", async () => {
    throw new TypeError("boom");
  });
  const runtime = createAgentRuntime(compose({ name: "test", plugins: [toolsPlugin(explode)] }), {
    model: new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "explode", id: "c1", args: { n: 1 } }] }, { content: "It failed." }] } }),
  });
  const events: StreamEventRecord[] = [];
  const scope = new RunScope("run-1", "thread-1", steppingClock(0), { event: (e) => events.push(e) }, stream);
  const result = await runtime.run({ threadId: "thread-1", runId: "run-1", input: "go", scope });
  // The thrown tool is an error result, as always: the run goes on.
  expect(result.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
  return events;
}

describe("the tools step's tool-call reports", () => {
  it("`tools`: on_tool_start, then on_tool_error with the thrown error's name and message", async () => {
    const events = (await run({ modes: ["tools"], subgraphs: false })).filter((e) => e.event === "tools");
    const id = (events[0]!.data as { toolCallId: string }).toolCallId;
    expect(events.map((e) => e.data)).toEqual([
      { event: "on_tool_start", toolCallId: id, name: "explode", input: '{"n":1}' },
      { event: "on_tool_error", toolCallId: id, name: "explode", error: { error: "TypeError", message: "boom" } },
    ]);
  });

  it("`events`: LangChain's on_tool_start and on_tool_error inside the tools node", async () => {
    const events = (await run({ modes: ["events"], subgraphs: false })).filter((e) => e.event === "events").map((e) => e.data as { event: string; name: string; data: Record<string, unknown> });
    const names = events.map((e) => `${e.event}:${e.name}`);
    expect(names.slice(names.indexOf("on_chain_start:tools"), names.indexOf("on_chain_end:tools") + 1)).toEqual(["on_chain_start:tools", "on_tool_start:explode", "on_tool_error:explode", "on_chain_end:tools"]);
    expect(events.find((e) => e.event === "on_tool_start")!.data.input).toEqual({ n: 1 });
  });

  it("neither asked: no tools report, no events", async () => {
    const events = await run({ modes: ["values"], subgraphs: false });
    expect(events.filter((e) => e.event === "tools" || e.event === "events")).toEqual([]);
  });
});
