import { describe, expect, it } from "vitest";
import { Command } from "@langchain/langgraph";
import { HumanMessage } from "@langchain/core/messages";
import { agentEventName, childStreamsTokens, namespaceOf, namespacedEvent, streamGraph } from "../../kernel/loop/stream-graph.js";
import { chunksWithEvents, eventPayload } from "../../kernel/loop/events-mode.js";
import { MAX_VALUES_EVENT_BYTES } from "../../kernel/loop/stream-payloads.js";

/** A graph whose stream yields the given `[mode, payload]` chunks. */
const graphOf = (chunks: Array<[string, unknown]>) => ({
  invoke: async () => ({}),
  stream: async () =>
    (async function* () {
      yield* chunks;
    })(),
});

describe("streamGraph", () => {
  it("a state over the limit is never cut: a `values/omitted` marker goes out instead", async () => {
    const big = { messages: [], blob: "x".repeat(MAX_VALUES_EVENT_BYTES + 10) };
    const events: Array<[string, unknown]> = [];
    await streamGraph(graphOf([["values", { messages: [], __keel: { turn: 1 } }], ["values", big]]), {}, {}, { stream: { modes: ["values"], subgraphs: false }, agent: "lead", keepLastValues: false, emit: (e, d) => events.push([e, d]) });
    expect(events[0]).toEqual(["values", { messages: [] }]);
    expect(events[1]![0]).toBe("values/omitted");
    expect(events[1]![1]).toMatchObject({ code: "values_too_large", limit: MAX_VALUES_EVENT_BYTES, recovery: "reload_durable_state" });
    expect((events[1]![1] as { bytes: number }).bytes).toBeGreaterThan(MAX_VALUES_EVENT_BYTES);
  });

  it("a child's chunks go out only with subgraphs, under its namespace", async () => {
    const run = async (subgraphs: boolean) => {
      const events: string[] = [];
      await streamGraph(graphOf([["updates", { agent: { messages: [] } }]]), {}, {}, { stream: { modes: ["updates"], subgraphs }, agent: "lead/call_1/call_2", keepLastValues: false, emit: (e) => events.push(e) });
      return events;
    };
    expect(await run(false)).toEqual([]);
    expect(await run(true)).toEqual(["updates|tools:call_1|tools:call_2"]);
    expect(namespaceOf("lead")).toEqual([]);
    expect(namespacedEvent("values", [])).toBe("values");
  });
});

describe("a child agent's own events", () => {
  const sub = { modes: ["custom", "messages-tuple", "tools", "guard"], subgraphs: true };
  const flat = { ...sub, subgraphs: false };
  it("go under its namespace with subgraphs; without, custom and guard un-namespaced, messages and tools left out (as LangGraph)", () => {
    expect(["custom", "guard", "messages", "tools"].map((m) => agentEventName(m, "lead/a/b", sub))).toEqual(["custom|tools:a|tools:b", "guard|tools:a|tools:b", "messages|tools:a|tools:b", "tools|tools:a|tools:b"]);
    expect(["custom", "guard", "messages", "tools"].map((m) => agentEventName(m, "lead/a", flat))).toEqual(["custom", "guard", undefined, undefined]);
    expect(["custom", "messages", "tools"].map((m) => agentEventName(m, "lead", flat))).toEqual(["custom", "messages", "tools"]);
  });
  it("stream tokens for `messages`, or for `messages-tuple` only with subgraphs", () => {
    expect([childStreamsTokens({ modes: ["messages"], subgraphs: false }), childStreamsTokens(flat), childStreamsTokens(sub), childStreamsTokens({ modes: ["values"], subgraphs: true })]).toEqual([true, false, true, false]);
  });
});

describe("events mode", () => {
  it("an event keeps the v2 fields and loses the runtime's keys: `__` state keys (a Command's update too), the fence and run key", () => {
    const payload = eventPayload({
      event: "on_chain_end",
      name: "agent",
      run_id: "r2",
      tags: ["graph:step:1"],
      metadata: { langgraph_node: "agent", thread_id: "t1", keel_run_key: "run|lead", keel_fence: { epoch: 1 }, __pregel_x: 1 },
      data: { input: { messages: [new HumanMessage({ content: "hi", id: "m1" })], __keel: { turn: 1 } }, output: new Command({ update: { messages: [], __keel: { turn: 2 } }, goto: "tools" }) },
    });
    expect(payload.metadata).toEqual({ langgraph_node: "agent", thread_id: "t1" });
    expect(payload.data).toEqual({
      input: { messages: [{ content: "hi", id: "m1", type: "human", additional_kwargs: {}, response_metadata: {} }] },
      output: expect.objectContaining({ lg_name: "Command", update: { messages: [] }, goto: ["tools"] }),
    });
    expect(Object.keys(payload).sort()).toEqual(["data", "event", "metadata", "name", "run_id", "tags"]);
  });

  it("the root run's on_chain_stream events are the graph's chunks; other events (and a nested run's stream) go to `events`, hidden ones nowhere", async () => {
    const raw = [
      { event: "on_chain_start", name: "LangGraph", run_id: "root", data: {} },
      { event: "on_chain_stream", name: "LangGraph", run_id: "root", data: { chunk: ["updates", { agent: {} }] } },
      { event: "on_chain_stream", name: "inner", run_id: "n1", data: { chunk: "x" } },
      { event: "on_chain_start", name: "secret", run_id: "n2", tags: ["langsmith:hidden"], data: {} },
      { event: "on_chain_end", name: "LangGraph", run_id: "root", data: {} },
    ];
    const graph = { streamEvents: (_input: never, config: Record<string, unknown>) => (expect(config.version).toBe("v2"), (async function* () { yield* raw; })()) };
    const run = async (subgraphs: boolean) => {
      const events: string[] = [];
      const chunks: unknown[] = [];
      for await (const chunk of chunksWithEvents(graph, {}, {}, subgraphs, (e) => events.push(`${e.event}:${e.name}`))) chunks.push(chunk);
      return { events, chunks };
    };
    expect(await run(false)).toEqual({ chunks: [["updates", { agent: {} }]], events: ["on_chain_start:LangGraph", "on_chain_stream:inner", "on_chain_end:LangGraph"] });
    // As on the server: with subgraphs, every on_chain_stream is a chunk (only the root's are this graph's), none an `events` event.
    expect((await run(true)).events).toEqual(["on_chain_start:LangGraph", "on_chain_end:LangGraph"]);
  });
});
