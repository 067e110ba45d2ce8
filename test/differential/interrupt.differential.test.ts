/**
 * The dynamic-interrupt cases (interrupt-cases.ts): a tool that calls `interrupt()`, on
 * Keel (a stack with fixtures/ask-plugin.mjs) and on LangGraph (fixtures/langgraph-ask-graph.mjs).
 */
import { INTERRUPT_CASES } from "./interrupt-cases.js";
import { describeCases } from "./run-cases.js";

describeCases("differential: interrupt() in a tool on Keel and on @langchain/langgraph-api 1.5.1", INTERRUPT_CASES, { fixtures: { langgraph: "langgraph-ask-graph.mjs", keel: "ask.scenario.json" }, keelStack: "ask.stack.json" });
