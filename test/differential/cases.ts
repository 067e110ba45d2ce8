/**
 * The differential cases: one SDK call each, sent to both servers; `expect` lists the
 * differences the call shows, each by pointer and differences-table id (docs/http.md). Adding a case is one
 * line: `call("name", (c, s) => c.some.method(s.threadId), [["/pointer", "D7"]])`.
 */
import type { Client } from "@langchain/langgraph-sdk";
import type { ExpectedDifference } from "./compare.js";

/** What each server's setup made, in that server's ids. */
export interface Setup {
  /** A thread with one finished run (`runs.wait`), metadata `{ suite: "differential" }`. */
  threadId: string;
  runId: string;
  /** The first assistant `assistants.search` lists. */
  assistantId: string;
  url: string;
}

export interface DifferentialCase {
  name: string;
  run(client: Client, setup: Setup): Promise<unknown>;
  expect: ExpectedDifference[];
}

export const INPUT = { messages: [{ role: "user", content: "Read the README." }] };

/** A case list and the function that registers a case in it: its name, the call, and its expected differences as `[pointer, id]` pairs. */
export function caseList(): { cases: DifferentialCase[]; call(name: string, run: DifferentialCase["run"], expected?: [pointer: string, id: string][]): void } {
  const cases: DifferentialCase[] = [];
  return { cases, call: (name, run, expected = []) => void cases.push({ name, run, expect: expected.map(([pointer, id]) => ({ pointer, id })) }) };
}
const { cases, call } = caseList();

/** An HTTP error as `{ status, body }` (the SDK's error keeps no body). */
async function failure(url: string, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { ...init, headers: { "content-type": "application/json", ...init.headers } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // LangGraph answers some errors as plain text: compared as the string.
  }
  return { status: response.status, body };
}

export type Expected = [pointer: string, id: string][];

/** Keel's runtime channels beside `messages` in a thread's values (D5). */
const KEEL_CHANNELS = ["stopReasons", "usage", "runMeta", "bashRuns", "receipts", "receiptCounts", "receiptIndex", "receiptRun", "toolProgress", "delegations", "leases", "loop", "budget"];
/** A thread's values after the scripted run: Keel's channels (D5) and what each side puts on messages (D6). */
export const values = (at: string): Expected => [
  ...KEEL_CHANNELS.map((channel): [string, string] => [`${at}/${channel}`, "D5"]),
  [`${at}/messages/*/tool_calls/*/type`, "D6"],
  [`${at}/messages/*/response_metadata/finish_reason`, "D6"],
  [`${at}/messages/*/response_metadata/model_provider`, "D6"],
  [`${at}/messages/*/usage_metadata`, "D6"],
  [`${at}/messages/*/additional_kwargs/keel`, "D6"],
  [`${at}/messages/*/metadata`, "D6"],
];
/** A Run record (D3 assistant id, D9 kwargs); its metadata stamps are LangGraph's (graph_id, assistant_id, created_by, the thread's). */
const run = (at: string): Expected => [
  [`${at}/assistant_id`, "D3"], [`${at}/metadata/assistant_id`, "D3"],
  [`${at}/kwargs/config/configurable`, "D9"], [`${at}/kwargs/config/metadata`, "D9"], [`${at}/kwargs/stream_mode`, "D9"], [`${at}/kwargs/on_disconnect`, "D9"],
  [`${at}/kwargs/temporary`, "D9"], [`${at}/kwargs/subgraphs`, "D9"], [`${at}/kwargs/resumable`, "D9"],
];
/** A Thread record (D7); after a run its metadata holds LangGraph's stamps (`graph_id`, `assistant_id`: D3). */
const thread = (at: string, ran: boolean): Expected => [[`${at}/state_updated_at`, "D7"], [`${at}/config`, "D7"], ...(ran ? ([[`${at}/metadata/assistant_id`, "D3"]] as Expected) : [])];
/** A ThreadState of a run's history: values (D5, D6), the server's metadata stamps (D11), Keel's channels in the tasks' writes (D15). */
const history = (at: string): Expected => [...values(`${at}/values`), [`${at}/metadata`, "D11"], [`${at}/tasks/*/result`, "D15"]];
const assistant = (at: string): Expected => [[`${at}/assistant_id`, "D3"], [`${at}/description`, "D4"]];

// --- meta
call("GET /info", async (_c, s) => (await fetch(`${s.url}/info`)).json(), [
  ["/name", "D1"], ["/stacks", "D1"], ["/model", "D1"], ["/tracing", "D1"], ["/metrics", "D1"], ["/context", "D1"], ["/flags/langsmith_tracing_replicas", "D1"], ["/flags/crons", "D1"], ["/version", "D1"],
]);

// --- assistants
call("assistants.search()", (c) => c.assistants.search(), assistant("/0"));
call("assistants.get(id)", (c, s) => c.assistants.get(s.assistantId), assistant(""));

// --- threads
call("threads.create({ metadata })", (c) => c.threads.create({ metadata: { kind: "created" } }), [...thread("", false), ["/values", "D7"], ["/interrupts", "D7"]]);
call("threads.get(id) after a run", (c, s) => c.threads.get(s.threadId), [...thread("", true), ...values("/values")]);
call("threads.search({ metadata })", (c) => c.threads.search({ metadata: { suite: "differential" } }), [...thread("/0", true), ["/0/values", "D10"]]);
call("threads.getState(id) after a run", (c, s) => c.threads.getState(s.threadId), [...values("/values"), ["/metadata", "D11"]]);
call("threads.getHistory(id) after a run", (c, s) => c.threads.getHistory(s.threadId, { limit: 20 }), history("/*"));
call("threads.getHistory(id, { metadata: { source: \"loop\" }, limit: 2 })", (c, s) => c.threads.getHistory(s.threadId, { limit: 2, metadata: { source: "loop" } }), history("/*"));
call("a fork: updateState as `tools` at the checkpoint before the tool ran, then getState and getHistory", async (c) => {
  const { thread_id } = await c.threads.create();
  await c.runs.wait(thread_id, "lead", { input: INPUT });
  const before = (await c.threads.getHistory(thread_id, { limit: 20 })).find((s) => s.next.includes("tools"))!;
  const call = (before.values as { messages: { tool_calls?: { id: string }[] }[] }).messages.at(-1)!.tool_calls![0]!;
  const written = await c.threads.updateState(thread_id, { values: { messages: [{ type: "tool", content: "# Other", tool_call_id: call.id }] }, asNode: "tools", checkpointId: before.checkpoint.checkpoint_id! });
  const state = await c.threads.getState(thread_id);
  const history = await c.threads.getHistory(thread_id, { limit: 20 });
  const parentIsBefore = state.parent_checkpoint?.checkpoint_id === before.checkpoint.checkpoint_id;
  return { written, state, history, parentIsBefore };
}, [...history("/history/*"), // The fork's head: no tool ran on this branch (no `toolProgress`), the tool message is the client's (no `metadata`).
  ...values("/state/values").filter(([pointer]) => !pointer.endsWith("/toolProgress") && !pointer.endsWith("/messages/*/metadata")), ["/state/metadata", "D11"], ["/written/keel_workspace", "D16"]]);
call("threads.delete(id)", async (c) => c.threads.delete((await c.threads.create()).thread_id));
call("threads.get(missing) → 404", (_c, s) => failure(s.url, "/threads/00000000-0000-4000-8000-000000000000"), [["/body", "D2"]]);

// --- runs
call("runs.create(thread, assistant, { input })", async (c) => {
  const created = await c.threads.create();
  const started = await c.runs.create(created.thread_id, "lead", { input: INPUT });
  await c.runs.join(created.thread_id, started.run_id);
  return started;
}, [...run(""), ["/status", "D12"]]);
call("runs.get(thread, run) when finished", (c, s) => c.runs.get(s.threadId, s.runId), [...run(""), ["/outcome", "D13"]]);
call("runs.list(thread)", (c, s) => c.runs.list(s.threadId), [...run("/0"), ["/0/outcome", "D13"]]);
call("runs.wait(thread, assistant, { input })", async (c) => c.runs.wait((await c.threads.create()).thread_id, "lead", { input: INPUT }), [...values(""), ["/outcome", "D13"]]);
call("runs.join(thread, run) when finished", (c, s) => c.runs.join(s.threadId, s.runId), [...values(""), ["/outcome", "D13"]]);

// --- limit 0 (a number the validator once turned into null, i.e. the default): a 400 where LangGraph's minimum is 1, else an empty page
const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });
call("threads.search({ limit: 0 }) → 400", (_c, s) => failure(s.url, "/threads/search", post({ limit: 0 })), [["/body", "D2"]]);
call("assistants.search({ limit: 0 }) → 400", (_c, s) => failure(s.url, "/assistants/search", post({ limit: 0 })), [["/body", "D2"]]);
call("crons.search({ limit: 0 }) → 400", (_c, s) => failure(s.url, "/runs/crons/search", post({ limit: 0 })), [["/body", "D2"]]);
call("runs.list(thread, { limit: 0 })", (c, s) => c.runs.list(s.threadId, { limit: 0 }));
call("store.searchItems(prefix, { limit: 0 })", async (c) => {
  await c.store.putItem(["differential", "zero"], "k", { v: 1 });
  return [await c.store.searchItems(["differential", "zero"], { limit: 0 }), await c.store.listNamespaces({ prefix: ["differential"], limit: 0 })];
});

/** Every part of one `runs.stream` on a new thread, without the SSE ids (each server numbers its own). */
async function streamed(c: Client, streamMode: string[]): Promise<unknown> {
  const thread = await c.threads.create();
  const parts: Array<{ event: string; data: unknown }> = [];
  for await (const part of c.runs.stream(thread.thread_id, "lead", { input: INPUT, streamMode: streamMode as never })) parts.push({ event: part.event, data: part.data });
  return parts;
}
/** Keel's stream: `metadata` names the thread too (S1) and `end` closes it (S2). */
export const streamFrame = (endAt: number, at = ""): Expected => [[`${at}/0/data/thread_id`, "S1"], [`${at}/${endAt}`, "S2"]];
call("runs.stream values", (c) => streamed(c, ["values"]), [...streamFrame(5), ...values("/*/data")]);
/** What each node's update carries besides LangGraph's: the agent's and the tools step's Keel channels (D5), message fields (D6). */
export const nodeUpdates = (at = "/*/data", nodes: Array<"agent" | "tools"> = ["agent", "tools"]): Expected => [
  ...(nodes.includes("agent") ? ([
    ...["budget", "loop", "receiptRun", "usage"].map((channel): [string, string] => [`${at}/agent/${channel}`, "D5"]),
    [`${at}/agent/messages/*/tool_calls/*/type`, "D6"],
    [`${at}/agent/messages/*/response_metadata/finish_reason`, "D6"],
    [`${at}/agent/messages/*/response_metadata/model_provider`, "D6"],
    [`${at}/agent/messages/*/usage_metadata`, "D6"],
    [`${at}/agent/messages/*/additional_kwargs/keel`, "D6"],
  ] as Expected) : []),
  ...(nodes.includes("tools") ? ([
    ...["receipts", "receiptCounts", "receiptIndex", "toolProgress"].map((channel): [string, string] => [`${at}/tools/${channel}`, "D5"]),
    [`${at}/tools/messages/*/additional_kwargs/keel`, "D6"],
    [`${at}/tools/messages/*/metadata`, "D6"],
  ] as Expected) : []),
];
call("runs.stream updates", (c) => streamed(c, ["updates"]), [...streamFrame(4), ...nodeUpdates()]);
call("runs.stream values and updates", (c) => streamed(c, ["values", "updates"]), [...streamFrame(8), ...values("/*/data"), ...nodeUpdates()]);

call("runs.stream messages-tuple", (c) => streamed(c, ["messages-tuple"]), [
  ...streamFrame(4),
  ["/*/data/1", "S3"],
  ["/1/data/0", "S4"],
  ["/3/data/0", "S4"],
  ["/2/data/0/additional_kwargs/keel", "D6"],
  ["/2/data/0/metadata", "D6"],
]);
call("runs.stream checkpoints", (c) => streamed(c, ["checkpoints"]), [...streamFrame(6), ...values("/*/data/values")]);



// --- interrupts: a static pause before the tools step, then a resume (a `command` or `input: null`)
/** One `runs.stream` of `values` and `updates` on `threadId` with `payload`: every part, without the SSE ids. */
async function streamOn(c: Client, threadId: string, assistantId: string, payload: Record<string, unknown>): Promise<Array<{ event: string; data: unknown }>> {
  const parts: Array<{ event: string; data: unknown }> = [];
  for await (const part of c.runs.stream(threadId, assistantId, { streamMode: ["values", "updates"], ...payload } as never)) parts.push({ event: part.event, data: part.data });
  return parts;
}
/** Start a run with `start` (it pauses), read the paused thread, resume with `resume`, read the thread at the end. */
export async function pausedAndResumed(c: Client, resume: Record<string, unknown>, start: Record<string, unknown> = { input: INPUT, interruptBefore: ["tools"] }, assistantId = "lead"): Promise<unknown> {
  const { thread_id } = await c.threads.create();
  const paused = await streamOn(c, thread_id, assistantId, start);
  const thread = await c.threads.get(thread_id);
  const state = await c.threads.getState(thread_id);
  const resumed = await streamOn(c, thread_id, assistantId, resume);
  const after = await c.threads.get(thread_id);
  // `interrupts` is keyed by task id (each server's own): compared as the list.
  return { paused, status: thread.status, interrupts: Object.values(thread.interrupts ?? {}), next: state.next, tasks: state.tasks, resumed, final: { status: after.status, values: after.values } };
}
/** Values before any tool ran: no tool message, no tool progress yet (D5, D6). */
export const valuesBeforeTools = (at: string): Expected => values(at).filter(([pointer]) => !pointer.endsWith("/toolProgress") && !pointer.endsWith("/messages/*/metadata"));
/** The input's values: no model message yet either. */
export const inputValues = (at: string): Expected => valuesBeforeTools(at).filter(([pointer]) => !pointer.includes("/messages/") && !["/receiptRun", "/loop", "/budget"].some((c) => pointer.endsWith(c)));
const pauseAndResume: Expected = [
  // the paused run: metadata, values (input), updates (agent), values, updates and values `__interrupt__`, then Keel's end
  ...streamFrame(6, "/paused"), ...inputValues("/paused/1/data"), ...nodeUpdates("/paused/2/data", ["agent"]), ...valuesBeforeTools("/paused/3/data"),
  // the resume run: metadata, values, updates (tools), values, updates (agent), values, end
  ...streamFrame(6, "/resumed"), ...valuesBeforeTools("/resumed/1/data"), ...nodeUpdates("/resumed/2/data", ["tools"]), ...values("/resumed/3/data"), // the second model step writes no tool call and leaves `loop` and `receiptRun` as they were
  ...nodeUpdates("/resumed/4/data", ["agent"]).filter(([p]) => !["/tool_calls/*/type", "/loop", "/receiptRun"].some((end) => p.endsWith(end))), ...values("/resumed/5/data"),
  ...values("/final/values"),
];
call("interrupt_before tools, then command resume: streams, paused thread, final values", (c) => pausedAndResumed(c, { command: { resume: "approved" } }), pauseAndResume);
call("interrupt_before tools, then input null: streams, paused thread, final values", (c) => pausedAndResumed(c, { input: null }), pauseAndResume);
/**
 * `events`: the stream-events v2 records of both servers, but for the model step's insides —
 * Keel's loop calls a chat model (`on_chat_model_start` / `_end`), the suite's LangGraph graph
 * a plain function (a `RunnableLambda` chain): S7.
 */
async function streamedEvents(c: Client): Promise<unknown> {
  const parts = (await streamed(c, ["events"])) as Array<{ event: string; data: { event?: string; name?: string } }>;
  return parts.filter((p) => p.event !== "events" || !(p.data.event?.startsWith("on_chat_model") || p.data.name === "RunnableLambda"));
}
/** What a LangGraph server stamps into every event's metadata (the run's config metadata and its `configurable`), and a LangChain tool's `versions`: S8. */
const SERVER_STAMPS = ["created_by", "graph_id", "assistant_id", "run_attempt", "langgraph_version", "langgraph_plan", "langgraph_host", "run_id", "versions"];
call("runs.stream events", (c) => streamedEvents(c), [
  ...streamFrame(11),
  ...SERVER_STAMPS.map((key): [string, string] => [`/*/data/metadata/${key}`, "S8"]),
  ...values("/*/data/data/input"),
  ...values("/*/data/data/output").filter(([pointer]) => !pointer.endsWith("/messages/*/metadata")),
  // A node's output is the Command it routes with (S9); the graph's input went in as LangChain messages; the tool's message has its id.
  ...["lg_name", "update", "goto", "messages"].map((key): [string, string] => [`/*/data/data/output/${key}`, "S9"]),
  ["/1/data/data/input/messages/0", "S9"],
  ["/6/data/data/output/id", "S9"],
  ["/6/data/data/output/metadata", "D6"],
]);

call("runs.stream tools", (c) => streamed(c, ["tools"]), [...streamFrame(3), ["/2/data/output/metadata", "D6"]]);

export const CASES: readonly DifferentialCase[] = cases;
