/**
 * LangGraph's stream modes through the SDK against `keel serve`'s wiring on a scripted run:
 * exact event sequences per mode (a tool call, parallel calls, a subagent, a failure), the
 * wire format (LangGraph's events plus only `end`; `guard`/`task` only by name; no mode =
 * `values`; `error` before `end`), and a join filtering what the run computed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, names, startStreamServer, type Part, type StreamServer } from "./stream-server.js";

const INPUT = { messages: [{ role: "user", content: "Read the notes." }] };

const PARALLEL = {
  workspace: { files: { "README.md": "# Tides\n", "NOTES.md": "high at noon\n" } },
  agents: {
    lead: {
      turns: [
        { content: "Reading both.", toolCalls: [{ name: "read_file", args: { path: "README.md" } }, { name: "read_file", args: { path: "NOTES.md" } }] },
        { content: "Done: Tides, high at noon." },
      ],
      then: "stop",
    },
  },
};

const SUBAGENT = {
  agents: {
    lead: {
      turns: [{ toolCalls: [{ name: "task", id: "t1", args: { description: "look up", prompt: "Say hi.", subagentType: "helper" } }] }, { content: "The helper said hi." }],
      then: "stop",
    },
    helper: { turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "hi", completedSteps: ["said hi"], missingSteps: [] } }] }] },
  },
};

const FAILING = {
  agents: { lead: { turns: [{ content: "never" }] } },
  faults: [{ agent: "lead", turn: 1, times: "always", error: { status: 400, message: "invalid request: scripted refusal" } }],
};

const stream = (s: StreamServer, streamMode?: string[], extra: Record<string, unknown> = {}) =>
  (async () => {
    const thread = await s.client.threads.create();
    return collect(s.client.runs.stream(thread.thread_id, "lead", { input: INPUT, ...(streamMode ? { streamMode: streamMode as never } : {}), ...extra }));
  })();

const messagesOf = (values: { messages: Array<{ type: string; content: unknown }> }) => values.messages.map((m) => `${m.type}:${typeof m.content === "string" ? m.content : ""}`);

describe("stream modes: a tool step with two parallel calls", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(PARALLEL)), 30_000);
  afterAll(async () => s?.close());

  it("no mode: LangGraph's default `values`, after every superstep (input, agent, tools, agent), then `end`", async () => {
    const parts = await stream(s);
    expect(names(parts)).toEqual(["metadata", "values", "values", "values", "values", "end"]);
    const values = parts.filter((p) => p.event === "values").map((p) => messagesOf(p.data));
    expect(values).toEqual([
      ["human:Read the notes."],
      ["human:Read the notes.", "ai:Reading both."],
      ["human:Read the notes.", "ai:Reading both.", "tool:# Tides\n", "tool:high at noon\n"],
      ["human:Read the notes.", "ai:Reading both.", "tool:# Tides\n", "tool:high at noon\n", "ai:Done: Tides, high at noon."],
    ]);
    // Runtime bookkeeping (`__keel`) is never part of the values.
    for (const p of parts.filter((p) => p.event === "values")) expect(Object.keys(p.data).filter((k) => k.startsWith("__"))).toEqual([]);
  });

  it("updates: keyed by node, each with that node's own state update", async () => {
    const parts = await stream(s, ["updates"]);
    expect(names(parts)).toEqual(["metadata", "updates", "updates", "updates", "end"]);
    const updates = parts.filter((p) => p.event === "updates").map((p) => p.data);
    expect(updates.map((u) => Object.keys(u))).toEqual([["agent"], ["tools"], ["agent"]]);
    expect(updates[0].agent.messages.map((m: { type: string; tool_calls: unknown[] }) => [m.type, m.tool_calls.length])).toEqual([["ai", 2]]);
    expect(updates[1].tools.messages.map((m: { type: string; content: string }) => [m.type, m.content])).toEqual([
      ["tool", "# Tides\n"],
      ["tool", "high at noon\n"],
    ]);
    expect(updates[2].agent.messages.map((m: { content: string }) => m.content)).toEqual(["Done: Tides, high at noon."]);
    for (const u of updates) for (const node of Object.values(u)) expect(Object.keys(node as object).filter((k) => k.startsWith("__"))).toEqual([]);
  });

  it("checkpoints, tasks and debug: LangGraph's sequence and payloads", async () => {
    const parts = await stream(s, ["checkpoints", "tasks", "debug"]);
    const step = ["checkpoints", "debug", "tasks", "debug", "tasks", "debug"];
    expect(names(parts)).toEqual(["metadata", "checkpoints", "debug", ...step, ...step, ...step, "checkpoints", "debug", "end"]);
    const checkpoints = parts.filter((p) => p.event === "checkpoints").map((p) => p.data);
    expect(checkpoints.map((c) => [c.metadata.source, c.metadata.step, c.next])).toEqual([
      ["input", -1, ["__start__"]],
      ["loop", 0, ["agent"]],
      ["loop", 1, ["tools"]],
      ["loop", 2, ["agent"]],
      ["loop", 3, []],
    ]);
    expect(Object.keys(checkpoints[0]).sort()).toEqual(["metadata", "next", "values"]);
    const tasks = parts.filter((p) => p.event === "tasks").map((p) => p.data);
    expect(tasks.map((t) => [t.name, "input" in t ? "start" : "result"])).toEqual([
      ["agent", "start"],
      ["agent", "result"],
      ["tools", "start"],
      ["tools", "result"],
      ["agent", "start"],
      ["agent", "result"],
    ]);
    expect(tasks[1]).toMatchObject({ interrupts: [], error: null });
    expect(tasks[3].result.messages).toHaveLength(2);
    const debug = parts.filter((p) => p.event === "debug").map((p) => p.data);
    expect(debug.map((d) => d.type)).toEqual(["checkpoint", "checkpoint", "task", "task_result", "checkpoint", "task", "task_result", "checkpoint", "task", "task_result", "checkpoint"]);
    const first = debug[0].payload;
    expect(first.checkpoint).toMatchObject({ checkpoint_ns: "", checkpoint_map: null });
    expect(typeof first.checkpoint.checkpoint_id).toBe("string");
    // The run's lease fence and LangGraph's internal keys stay out of the config a client sees.
    expect(Object.keys(first.config.configurable).sort()).toEqual(["checkpoint_id", "checkpoint_ns", "thread_id"]);
    expect(debug[1].payload).toHaveProperty("parent_checkpoint");
  });

  it("messages-tuple: [chunk, metadata] for the model's tokens (response_metadata filled) and the tools step's messages", async () => {
    const parts = await stream(s, ["messages-tuple"]);
    expect(names(parts)).toEqual(["metadata", "messages", "messages", "messages", "messages", "end"]);
    const tuples = parts.filter((p) => p.event === "messages").map((p) => p.data);
    expect(tuples.map(([m, meta]) => [m.type, meta.langgraph_node])).toEqual([
      ["AIMessageChunk", "agent"],
      ["tool", "tools"],
      ["tool", "tools"],
      ["AIMessageChunk", "agent"],
    ]);
    expect(tuples[0][0].response_metadata).toMatchObject({ finish_reason: "tool_calls" });
    expect(tuples[3][0].response_metadata).toMatchObject({ finish_reason: "stop" });
    expect(tuples.slice(1, 3).map(([m]) => m.content)).toEqual(["# Tides\n", "high at noon\n"]);
  });

  it("messages: messages/complete per new message (the input's too), messages/metadata then messages/partial per streamed one", async () => {
    const parts = await stream(s, ["messages"]);
    expect(names(parts)).toEqual(["metadata", "messages/complete", "messages/metadata", "messages/partial", "messages/complete", "messages/complete", "messages/metadata", "messages/partial", "messages/complete", "end"]);
    const complete = parts.filter((p) => p.event === "messages/complete").map((p) => p.data.map((m: { type: string }) => m.type));
    expect(complete).toEqual([["human"], ["ai"], ["tool", "tool"], ["ai"]]);
    const partial = parts.find((p) => p.event === "messages/partial")!.data[0];
    const metadata = parts.find((p) => p.event === "messages/metadata")!.data;
    expect(Object.keys(metadata)).toEqual([partial.id]);
    expect(metadata[partial.id].metadata).toMatchObject({ langgraph_node: "agent" });
  });

  it("several modes at once interleave in LangGraph's order", async () => {
    const parts = await stream(s, ["values", "updates"]);
    expect(names(parts)).toEqual(["metadata", "values", "updates", "values", "updates", "values", "updates", "values", "end"]);
  });

  it("guard and task only when asked for by name; a join filters what the run computed", async () => {
    const thread = await s.client.threads.create();
    const parts = await collect(s.client.runs.stream(thread.thread_id, "lead", { input: INPUT, streamMode: ["values", "updates"] }));
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const joined = await collect(s.client.runs.joinStream(thread.thread_id, runId, { streamMode: ["updates"] }));
    expect(names(joined)).toEqual(["metadata", "updates", "updates", "updates", "end"]);
    // Asked at creation: values and updates; `debug` was not computed, so a join asking for it gets nothing of it.
    const debug = await collect(s.client.runs.joinStream(thread.thread_id, runId, { streamMode: ["debug"] }));
    expect(names(debug)).toEqual(["metadata", "end"]);
  });
});

describe("stream modes: a subagent", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(SUBAGENT)), 30_000);
  afterAll(async () => s?.close());

  it("without stream_subgraphs the child's graph events stay out; `task` only when asked for", async () => {
    const parts = await stream(s, ["updates"]);
    expect(names(parts)).toEqual(["metadata", "updates", "updates", "updates", "end"]);
    const withTask = await stream(s, ["updates", "task"]);
    expect(names(withTask).filter((n) => n === "task").length).toBeGreaterThan(0);
  });

  it("stream_subgraphs: the child's updates come under its namespace `updates|tools:<taskToolCallId>`", async () => {
    const parts = await stream(s, ["updates"], { streamSubgraphs: true });
    const seq = names(parts);
    const childEvents = seq.filter((n) => n.startsWith("updates|"));
    expect(childEvents.length).toBeGreaterThan(0);
    expect(new Set(childEvents)).toEqual(new Set([expect.stringMatching(/^updates\|tools:[^|]+$/)]));
    // The child's namespace sits between the lead's tools step start and its update.
    expect(seq.filter((n) => n === "updates")).toHaveLength(3);
    expect(seq.indexOf(childEvents[0]!)).toBeLessThan(seq.lastIndexOf("updates"));
    const child = parts.find((p) => p.event.startsWith("updates|"))!;
    expect(Object.keys(child.data)).toEqual(["agent"]);
  });
});

describe("stream modes: a failed run", () => {
  let s: StreamServer;
  beforeAll(async () => void (s = await startStreamServer(FAILING)), 30_000);
  afterAll(async () => s?.close());

  it("sends LangGraph's `error` event {error, message} after the last values and before `end`", async () => {
    const parts: Part[] = await stream(s, ["values"]);
    const seq = names(parts);
    expect(seq.at(-1)).toBe("end");
    expect(seq.at(-2)).toBe("error");
    expect(seq.filter((n) => n === "error")).toHaveLength(1);
    const error = parts.at(-2)!.data;
    // LangGraph's {error, message}, plus Keel's `type` (the same code, as before the LangGraph fields).
    expect(Object.keys(error).sort()).toEqual(["error", "message", "type"]);
    expect(error.message).toMatch(/scripted refusal/);
  });
});
