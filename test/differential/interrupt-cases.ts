/**
 * The dynamic-interrupt cases: a tool that calls LangGraph's `interrupt({ question })` —
 * Keel: `ask_user` of fixtures/ask-plugin.mjs on fixtures/ask.stack.json (the lead stack plus
 * that plugin), scripted by fixtures/ask.scenario.json; LangGraph: fixtures/langgraph-ask-graph.mjs.
 * Run by interrupt.differential.test.ts on servers of their own. Each side's assistant is
 * the first `assistants.search` lists (Keel's is named by the stack file's path: D3).
 */
import { caseList, inputValues, nodeUpdates, pausedAndResumed, streamFrame, values, valuesBeforeTools, type DifferentialCase, type Expected } from "./cases.js";

const { cases, call } = caseList();
const ASK = { messages: [{ role: "user", content: "Ask me first." }] };

const askAndAnswer: Expected = [
  // the paused run: metadata, values (input), updates (agent), values, updates and values `__interrupt__` (the question), then Keel's end
  ...streamFrame(6, "/paused"), ...inputValues("/paused/1/data"), ...nodeUpdates("/paused/2/data", ["agent"]), ...valuesBeforeTools("/paused/3/data"),
  // the resume run: metadata, values, updates (tools: the answer; no read mark, not a file tool), values, updates (agent), values, end
  ...streamFrame(6, "/resumed"), ...valuesBeforeTools("/resumed/1/data"), ...nodeUpdates("/resumed/2/data", ["tools"]).filter(([p]) => !p.endsWith("/additional_kwargs/keel")), ...values("/resumed/3/data"),
  ...nodeUpdates("/resumed/4/data", ["agent"]).filter(([p]) => !["/tool_calls/*/type", "/loop", "/receiptRun"].some((end) => p.endsWith(end))), ...values("/resumed/5/data"),
  ...values("/final/values"),
];
call("interrupt() in a tool, then command resume: streams, the paused thread's interrupts, final values", (c, s) => pausedAndResumed(c, { command: { resume: "the harbour table" } }, { input: ASK }, s.assistantId), askAndAnswer);

export const INTERRUPT_CASES: readonly DifferentialCase[] = cases;
