/**
 * The failure cases (failure-cases.ts) on servers whose scripted model fails on every call:
 * each case's SDK call goes to both; the answers, masked, may differ only as the case expects
 * (docs/http.md, "Differences from the LangGraph Agent Server").
 */
import { FAILURE_CASES } from "./failure-cases.js";
import { describeCases } from "./run-cases.js";

describeCases("differential: a failing model on Keel and on @langchain/langgraph-api 1.5.1", FAILURE_CASES, { fixtures: { langgraph: "langgraph-failing-graph.mjs", keel: "failing.scenario.json" } });
