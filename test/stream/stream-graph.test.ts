import { describe, expect, it } from "vitest";
import { namespaceOf, namespacedEvent, streamGraph } from "../../kernel/loop/stream-graph.js";
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
