/**
 * LangGraph's `events` (stream-events v2) and `tools` stream modes through the SDK against
 * `keel serve`'s wiring on scripted runs (a tool call, an unknown tool, a failure), and a
 * subagent's own events under its namespace with `streamSubgraphs: true`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CompiledStateGraph } from "@langchain/langgraph";
import { collect, names, startStreamServer, type Part, type StreamServer } from "./stream-server.js";

const INPUT = { messages: [{ role: "user", content: "Read the notes." }] };

const ONE_CALL = {
  workspace: { files: { "README.md": "# Tides\n" } },
  agents: { lead: { turns: [{ content: "Reading.", toolCalls: [{ name: "read_file", id: "call_a", args: { path: "README.md" } }, { name: "no_such_tool", id: "call_b", args: {} }] }, { content: "Done: Tides." }], then: "stop" } },
};

const FAILING = {
  agents: { lead: { turns: [{ content: "never" }] } },
  faults: [{ agent: "lead", turn: 1, times: "always", error: { status: 400, message: "invalid request: scripted refusal" } }],
};

const SUBAGENT = {
  agents: {
    lead: { turns: [{ toolCalls: [{ name: "task", id: "t1", args: { description: "look up", prompt: "Say hi.", subagentType: "helper" } }] }, { content: "The helper said hi." }], then: "stop" },
    helper: { turns: [{ content: "Saying hi.", toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "hi", completedSteps: ["said hi"], missingSteps: [] } }] }] },
  },
  // One provider error in the child's first call: error-fallback retries it (a `guard` event of the child's).
  faults: [{ agent: "helper", turn: 1, times: 1, error: { status: 503, message: "scripted overload" } }],
};

async function stream(s: StreamServer, streamMode: string[], extra: Record<string, unknown> = {}): Promise<{ parts: Part[]; runId: string }> {
  const thread = await s.client.threads.create();
  const parts = await collect(s.client.runs.stream(thread.thread_id, "lead", { input: INPUT, streamMode: streamMode as never, ...extra }));
  return { parts, runId: parts[0]!.data.run_id };
}

const eventsOf = (parts: Part[]) => parts.filter((p) => p.event === "events").map((p) => p.data);
const shortly = (events: Array<{ event: string; name: string }>) => events.map((e) => `${e.event}:${e.name}`);

describe("events mode: a tool step", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(ONE_CALL)), 30_000);
  afterAll(async () => s?.close());

  it("sends LangChain's stream-events v2 of every runnable, in order, as `events` between `metadata` and `end`", async () => {
    const { parts, runId } = await stream(s, ["events"]);
    const seq = names(parts);
    expect(seq[0]).toBe("metadata");
    expect(seq.at(-1)).toBe("end");
    expect(new Set(seq.slice(1, -1))).toEqual(new Set(["events"]));
    const events = eventsOf(parts);
    const model = events.find((e) => e.event === "on_chat_model_start")!.name;
    expect(shortly(events)).toEqual([
      "on_chain_start:LangGraph",
      "on_chain_start:agent",
      `on_chat_model_start:${model}`,
      `on_chat_model_end:${model}`,
      "on_chain_end:agent",
      "on_chain_start:tools",
      "on_tool_start:read_file",
      "on_tool_end:read_file",
      "on_chain_end:tools",
      "on_chain_start:agent",
      `on_chat_model_start:${model}`,
      `on_chat_model_end:${model}`,
      "on_chain_end:agent",
      "on_chain_end:LangGraph",
    ]);
    // The payload fields of the v2 shape; the graph's own run is the run (as on the LangGraph server).
    for (const e of events) expect(Object.keys(e).sort()).toEqual(["data", "event", "metadata", "name", "run_id", "tags"]);
    expect(events[0].run_id).toBe(runId);
    expect(events.at(-1).run_id).toBe(runId);
    expect(events.filter((e) => e.name === "agent").map((e) => e.tags)).toEqual([["graph:step:1"], ["graph:step:1"], ["graph:step:3"], ["graph:step:3"]]);
    expect(events[1].metadata).toMatchObject({ langgraph_node: "agent", langgraph_step: 1 });
    const toolStart = events.find((e) => e.event === "on_tool_start");
    const toolEnd = events.find((e) => e.event === "on_tool_end");
    // As a LangChain tool's run: the arguments object in, the tool message out.
    expect(toolStart.data.input).toEqual({ path: "README.md" });
    expect(toolEnd.data.output).toMatchObject({ type: "tool", tool_call_id: expect.stringMatching(/^call_a_/), content: "# Tides\n", status: "success" });
    expect(events.at(-1).data.output.messages.map((m: { type: string }) => m.type)).toEqual(["human", "ai", "tool", "tool", "ai"]);
    // Keel's runtime bookkeeping is in no event: no `__` state keys (a node's Command update included), no lease fence or run key.
    const text = JSON.stringify(events);
    expect(text).not.toContain("__keel");
    expect(text).not.toContain("keel_fence");
    expect(text).not.toContain("keel_run_key");
    expect(events.find((e) => e.event === "on_chain_end" && e.name === "agent").data.output.update.messages[0].content).toBe("Reading.");
  });

  it("events and updates together: the graph's chunks go out as their modes, never as `events`", async () => {
    const { parts } = await stream(s, ["events", "updates"]);
    expect(names(parts).filter((n) => n === "updates")).toHaveLength(3);
    expect(eventsOf(parts).filter((e) => e.event === "on_chain_stream")).toEqual([]);
  });

  it("is computed only when asked: a run without `events` never calls streamEvents", async () => {
    const spy = vi.spyOn(CompiledStateGraph.prototype, "streamEvents");
    try {
      const { parts } = await stream(s, ["values", "updates", "messages-tuple", "tools"]);
      expect(names(parts).at(-1)).toBe("end");
      expect(spy).not.toHaveBeenCalled();
      await stream(s, ["events"]);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("tools mode", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(ONE_CALL)), 30_000);
  afterAll(async () => s?.close());

  it("sends LangGraph's on_tool_start then on_tool_end per tool call; an unknown tool runs nothing, so sends nothing", async () => {
    const { parts } = await stream(s, ["tools"]);
    expect(names(parts)).toEqual(["metadata", "tools", "tools", "end"]);
    // The scripted call ids get the run's suffix (`call_a_<run>`).
    const id = parts[1]!.data.toolCallId as string;
    expect(id).toMatch(/^call_a_[0-9a-f]{8}$/);
    expect(parts.slice(1, 3).map((p) => p.data)).toEqual([
      { event: "on_tool_start", toolCallId: id, name: "read_file", input: '{"path":"README.md"}' },
      { event: "on_tool_end", toolCallId: id, name: "read_file", output: { type: "tool", tool_call_id: id, name: "read_file", content: "# Tides\n", status: "success", additional_kwargs: {}, response_metadata: {} } },
    ]);
  });
});

describe("events mode: a failed run", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(FAILING)), 30_000);
  afterAll(async () => s?.close());

  it("the graph's events end normally (the loop caught the fault), then LangGraph's `error`, then `end`", async () => {
    const { parts } = await stream(s, ["events"]);
    const events = eventsOf(parts);
    expect(shortly(events).filter((n) => !n.startsWith("on_chat_model"))).toEqual(["on_chain_start:LangGraph", "on_chain_start:agent", "on_chain_end:agent", "on_chain_end:LangGraph"]);
    expect(names(parts).slice(-2)).toEqual(["error", "end"]);
    expect(parts.at(-2)!.data.message).toMatch(/scripted refusal/);
  });
});

describe("a subagent's own events", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(SUBAGENT)), 30_000);
  afterAll(async () => s?.close());

  const childOf = (parts: Part[], prefix: string) => parts.filter((p) => p.event.startsWith(`${prefix}|`));

  it("streamSubgraphs: the child's messages-tuple tokens, guard and tools events come under `…|tools:<task call id>`", async () => {
    const { parts } = await stream(s, ["messages-tuple", "guard", "tools"], { streamSubgraphs: true });
    const childTokens = childOf(parts, "messages");
    // The task call's id (`t1_<run>`) names the child: agent path `lead/<id>`, namespace `tools:<id>`.
    const task = (childTokens[0]?.data[1].agent as string).split("/")[1]!;
    expect(task).toMatch(/^t1_[0-9a-f]{8}$/);
    expect(new Set(childTokens.map((p) => p.event))).toEqual(new Set([`messages|tools:${task}`]));
    expect(new Set(childTokens.map((p) => p.data[1].agent))).toEqual(new Set([`lead/${task}`]));
    expect(childTokens.map((p) => p.data[0].content).join("")).toContain("Saying hi.");
    const childGuards = childOf(parts, "guard");
    expect(childGuards.map((p) => [p.event, p.data.plugin, p.data.agent])).toEqual([[`guard|tools:${task}`, "error-fallback", `lead/${task}`]]);
    expect(parts.filter((p) => p.event === "guard")).toEqual([]);
    expect(childOf(parts, "tools").map((p) => [p.event, p.data.event, p.data.name])).toEqual([
      [`tools|tools:${task}`, "on_tool_start", "return_result"],
      [`tools|tools:${task}`, "on_tool_end", "return_result"],
    ]);
    // The lead's own stay un-namespaced.
    expect(parts.filter((p) => p.event === "tools").map((p) => [p.data.event, p.data.name])).toEqual([["on_tool_start", "task"], ["on_tool_end", "task"]]);
    expect(new Set(parts.filter((p) => p.event === "messages").map((p) => p.data[1].agent))).toEqual(new Set(["lead"]));
  });

  it("without streamSubgraphs, as LangGraph: the child's guard reaches the stream without namespace; its tokens and tool events stay out", async () => {
    const { parts } = await stream(s, ["messages-tuple", "guard", "tools"]);
    expect(names(parts).filter((n) => n.includes("|"))).toEqual([]);
    expect(parts.filter((p) => p.event === "guard").map((p) => [p.data.plugin, p.data.agent])).toEqual([["error-fallback", expect.stringMatching(/^lead\/t1_[0-9a-f]{8}$/)]]);
    expect(new Set(parts.filter((p) => p.event === "messages").map((p) => p.data[1].agent))).toEqual(new Set(["lead"]));
    expect(parts.filter((p) => p.event === "tools").map((p) => p.data.name)).toEqual(["task", "task"]);
  });

  it("events: the subagent's LangChain events come too, un-namespaced (as the server sends every event), its graph a root run of its own", async () => {
    const { parts, runId } = await stream(s, ["events"]);
    expect(names(parts).filter((n) => n.includes("|"))).toEqual([]);
    const graphs = eventsOf(parts).filter((e) => e.name === "LangGraph").map((e) => [e.event, e.run_id === runId]);
    // The lead's graph starts, the child's starts and ends inside the lead's tools step, then the lead's ends.
    expect(graphs).toEqual([["on_chain_start", true], ["on_chain_start", false], ["on_chain_end", false], ["on_chain_end", true]]);
    const tools = eventsOf(parts).filter((e) => e.event === "on_tool_start").map((e) => e.name);
    expect(tools).toEqual(["task", "return_result"]);
  });
});
