import { Annotation, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";

const CountState = Annotation.Root({
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

/** The smallest graph that checkpoints: one node adding 1 to a summed counter. */
export function countingGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(CountState)
    .addNode("increment", () => ({ count: 1 }))
    .addEdge("__start__", "increment")
    .addEdge("increment", "__end__")
    .compile({ checkpointer });
}
