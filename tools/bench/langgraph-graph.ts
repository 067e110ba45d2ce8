/**
 * The graph the stream benchmark runs on the LangGraph in-memory API server: one node
 * that writes `n` custom stream events as fast as it can (`burst`), or `perTick` events
 * every millisecond (`paced`), each stamped with its publish time (`t`, ms since the
 * epoch, sub-millisecond) so the client can measure publish→client latency.
 */
import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { payload } from "./http.bench.js";

const State = Annotation.Root({
  n: Annotation<number>,
  perTick: Annotation<number>,
});

export const nowMs = (): number => performance.timeOrigin + performance.now();

async function emit(state: typeof State.State, config: LangGraphRunnableConfig): Promise<Partial<typeof State.State>> {
  const write = config.writer!;
  const perTick = state.perTick > 0 ? state.perTick : state.n;
  for (let i = 0; i < state.n; ) {
    for (const end = Math.min(state.n, i + perTick); i < end; i++) write({ ...payload(i), i, t: nowMs() });
    if (i < state.n) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return {};
}

export const graph = new StateGraph(State).addNode("emit", emit).addEdge("__start__", "emit").addEdge("emit", "__end__").compile();
