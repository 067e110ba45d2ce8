/**
 * The failure cases: both servers' scripted model fails on every call (Keel:
 * fixtures/failing.scenario.json's fault; LangGraph: fixtures/langgraph-failing-graph.mjs),
 * so every run fails at its first model step. Run by stream-failure.differential.test.ts
 * on servers of their own (a server serves one script).
 */
import type { Client } from "@langchain/langgraph-sdk";
import { caseList, INPUT, inputValues, streamFrame, type Expected } from "./cases.js";

const { cases, call } = caseList();

type Part = { event: string; data: unknown };

/** A `values` or `updates` part that carries error-fallback's answer (an AI message with `additional_kwargs.keel.errorFallback`). */
function isFallbackStep(part: Part): boolean {
  if (part.event !== "values" && part.event !== "updates") return false;
  const data = part.data as { messages?: unknown[]; agent?: { messages?: unknown[] } } | null;
  const messages = [...(data?.messages ?? []), ...(data?.agent?.messages ?? [])] as Array<{ additional_kwargs?: { keel?: { errorFallback?: unknown } } }>;
  return messages.some((m) => m?.additional_kwargs?.keel?.errorFallback !== undefined);
}

/**
 * One `runs.stream` of a failing run on a new thread: its parts in order, but the failed
 * step's parts that carry error-fallback's answer (Keel's, S6) set apart as `failedStep`, so
 * the rest lines up with LangGraph's; and the run's and the thread's status after.
 */
async function failedStream(c: Client, streamMode: string[]): Promise<unknown> {
  const { thread_id } = await c.threads.create();
  const parts: Part[] = [];
  for await (const part of c.runs.stream(thread_id, "lead", { input: INPUT, streamMode: streamMode as never })) parts.push({ event: part.event, data: part.data });
  const [run] = await c.runs.list(thread_id);
  const thread = await c.threads.get(thread_id);
  return { parts: parts.filter((p) => !isFallbackStep(p)), failedStep: parts.filter(isFallbackStep), run: run?.status, thread: thread.status };
}

/** Keel's `error` event names the outcome's error type and adds it as `type` (S5). */
const failed = (errorAt: number): Expected => [[`/parts/${errorAt}/data/error`, "S5"], [`/parts/${errorAt}/data/type`, "S5"]];

call("a failed run's runs.stream values + updates", (c) => failedStream(c, ["values", "updates"]), [
  ...streamFrame(3, "/parts"), ...inputValues("/parts/1/data"), ...failed(2),
  // Keel's failed model step: error-fallback's answer in an `updates` and a `values` event before `error`
  ["/failedStep/0", "S6"], ["/failedStep/1", "S6"],
]);
call("a failed run's runs.stream messages-tuple", (c) => failedStream(c, ["messages-tuple"]), [...streamFrame(2, "/parts"), ...failed(1)]);

export const FAILURE_CASES: readonly import("./cases.js").DifferentialCase[] = cases;
