/**
 * The agent loop run through LangGraph's own stream (`graph.stream(input, { streamMode })`),
 * its chunks forwarded as the LangGraph Agent Server sends them: `values` after every
 * superstep, `updates` keyed by node with that node's state update, `checkpoints`, `tasks`,
 * `debug`. Only the modes the run's client asked for are computed (a `values` event
 * serializes the whole state). A child agent's chunks go out only when the client asked for
 * subgraphs, under the child's namespace (`updates|tools:<taskToolCallId>`). `events`
 * (kernel/loop/events-mode.ts) runs the graph through `streamEvents` instead.
 */
import { Buffer } from "node:buffer";
import type { StreamRequest } from "./run-scope.js";
import { CompletedMessages } from "./messages-mode.js";
import { chunksWithEvents } from "./events-mode.js";
import { checkpointsPayload, debugPayload, MAX_VALUES_EVENT_BYTES, plain, plainJson, taskPayload, updatesPayload, VALUES_OMITTED_EVENT, valuesPayload } from "./stream-payloads.js";

/** The stream modes that come from LangGraph's graph stream. */
export const GRAPH_STREAM_MODES: readonly string[] = ["values", "updates", "checkpoints", "tasks", "debug"];

interface StreamableGraph {
  invoke(input: never, config: Record<string, unknown>): Promise<unknown>;
  stream(input: never, config: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  streamEvents(input: never, config: Record<string, unknown>): AsyncIterable<unknown>;
}

/** The graph's root run takes the run's id (as on the LangGraph server) when it is a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StreamGraphOptions {
  stream: StreamRequest;
  /** The agent path (`lead`, `lead/<taskToolCallId>`, …): its namespace names a child's events. */
  agent: string;
  /** Without a checkpointer the last state is the run's result: `values` is streamed (not emitted unless asked). */
  keepLastValues: boolean;
  /** The run's id: the lead's graph run takes it in `events` (`run_id` of the graph's own events). */
  runId?: string;
  emit(event: string, data: unknown): void;
}

/** LangGraph's namespace of an agent path: `lead` → [], `lead/a/b` → [`tools:a`, `tools:b`]. */
export function namespaceOf(agent: string): string[] {
  return agent.split("/").slice(1).map((id) => `tools:${id}`);
}

/** The SSE event name of a mode in a namespace (`updates`, `updates|tools:call_1`). */
export function namespacedEvent(mode: string, namespace: readonly string[]): string {
  return namespace.length === 0 ? mode : `${mode}|${namespace.join("|")}`;
}

/**
 * The event name an agent's own event goes out under (`custom`, Keel's `guard`, the
 * `messages` tuples, `tools`): the lead's as it is; a child's, with `subgraphs`, under its
 * namespace (`custom|tools:<taskToolCallId>`); without, as LangGraph 1.7.3 treats a
 * subgraph's: its `custom` writes reach the parent's stream without a namespace (and so do
 * Keel's `guard` events), while its `messages` tuples and `tools` events are left out (the
 * graph's message and tool handlers skip a namespace outside the stream). `undefined`: not sent.
 */
export function agentEventName(mode: string, agent: string, stream: StreamRequest): string | undefined {
  const namespace = namespaceOf(agent);
  if (namespace.length === 0) return mode;
  if (stream.subgraphs) return namespacedEvent(mode, namespace);
  return SUBGRAPH_HIDDEN_MODES.has(mode) ? undefined : mode;
}

/**
 * Whether a child agent streams its model's tokens: for `messages` (the LangGraph server's
 * `messages/partial` come from every chat model of the run, a subgraph's too, never
 * namespaced) and for `messages-tuple` with subgraphs (under the child's namespace).
 */
export function childStreamsTokens(stream: StreamRequest): boolean {
  return stream.modes.includes("messages") || (stream.subgraphs && stream.modes.includes("messages-tuple"));
}

/** The modes LangGraph drops for a subgraph's events unless the client asked for subgraphs. */
const SUBGRAPH_HIDDEN_MODES: ReadonlySet<string> = new Set(["messages", "tools"]);

/**
 * Run the graph to its end, emitting the requested modes' chunks; returns the last `values`
 * chunk when `keepLastValues` (else undefined: the caller reads the checkpoint).
 */
export async function streamGraph(graph: StreamableGraph, input: unknown, config: Record<string, unknown>, options: StreamGraphOptions): Promise<Record<string, unknown> | undefined> {
  const namespace = namespaceOf(options.agent);
  const visible = namespace.length === 0 || options.stream.subgraphs;
  const wanted = visible ? GRAPH_STREAM_MODES.filter((m) => options.stream.modes.includes(m)) : [];
  const modes = new Set(wanted);
  if (options.keepLastValues) modes.add("values");
  // `messages`: its `messages/complete` events come from each superstep's state, as on the LangGraph server.
  const completed = namespace.length === 0 && options.stream.modes.includes("messages") ? new CompletedMessages(options.emit) : undefined;
  if (completed) modes.add("values");
  // `messages-tuple`: the tools step's messages go out as `[message, metadata]` (the model's are streamed as tokens).
  const toolTuples = visible && options.stream.modes.includes("messages-tuple");
  if (toolTuples) modes.add("updates");
  // `events`: the run goes through streamEvents (LangChain's callbacks on every runnable), only when asked.
  const events = options.stream.modes.includes("events");
  if (modes.size === 0 && !events) {
    await graph.invoke(input as never, config);
    return undefined;
  }
  if (modes.size === 0) modes.add("updates");
  const streamConfig = { ...config, streamMode: [...modes] };
  const chunks = events
    ? chunksWithEvents(graph, input, namespace.length === 0 && options.runId && UUID.test(options.runId) ? { ...streamConfig, runId: options.runId } : streamConfig, options.stream.subgraphs, (data) => options.emit("events", data))
    : await graph.stream(input as never, streamConfig);
  let last: Record<string, unknown> | undefined;
  for await (const chunk of chunks) {
    const [mode, payload] = chunk as [string, unknown];
    if (mode === "values") last = payload as Record<string, unknown>;
    if (mode === "values") completed?.fromState(payload as Record<string, unknown>);
    if (mode === "updates" && toolTuples) emitToolMessages(payload as Record<string, unknown>, namespace, options);
    if (!wanted.includes(mode)) continue;
    const event = namespacedEvent(mode, namespace);
    if (mode === "values") emitValues(payload as Record<string, unknown>, event, namespace, options.emit);
    else options.emit(event, toPayload(mode, payload as Record<string, unknown>));
  }
  return last;
}

function toPayload(mode: string, payload: Record<string, unknown>): unknown {
  if (mode === "updates") return updatesPayload(payload);
  if (mode === "checkpoints") return checkpointsPayload(payload);
  if (mode === "tasks") return plain(taskPayload(payload));
  return debugPayload(payload as Parameters<typeof debugPayload>[0]);
}

/** A `values` event is never cut: over the limit, a `values/omitted` marker says so (read the thread's state instead). */
function emitValues(state: Record<string, unknown>, event: string, namespace: readonly string[], emit: StreamGraphOptions["emit"]): void {
  const json = plainJson(valuesPayload(state));
  const bytes = Buffer.byteLength(json);
  if (bytes <= MAX_VALUES_EVENT_BYTES) return emit(event, JSON.parse(json));
  emit(namespacedEvent(VALUES_OMITTED_EVENT, namespace), { code: "values_too_large", bytes, limit: MAX_VALUES_EVENT_BYTES, recovery: "reload_durable_state" });
}

/** The tools node's new messages as LangGraph's messages-tuple events (`[message, { langgraph_node: "tools", … }]`). */
function emitToolMessages(update: Record<string, unknown>, namespace: readonly string[], options: StreamGraphOptions): void {
  const tools = update.tools as { messages?: unknown } | undefined;
  if (!tools || !Array.isArray(tools.messages)) return;
  for (const message of plain<Record<string, unknown>[]>(tools.messages)) options.emit(namespacedEvent("messages", namespace), [message, { langgraph_node: "tools", agent: options.agent }]);
}
