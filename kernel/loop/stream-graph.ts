/**
 * The agent loop run through LangGraph's own stream (`graph.stream(input, { streamMode })`),
 * its chunks forwarded as the LangGraph Agent Server sends them: `values` after every
 * superstep, `updates` keyed by node with that node's state update, `checkpoints`, `tasks`,
 * `debug`. Only the modes the run's client asked for are computed (a `values` event
 * serializes the whole state). A child agent's chunks go out only when the client asked for
 * subgraphs, under the child's namespace (`updates|tools:<taskToolCallId>`).
 */
import { Buffer } from "node:buffer";
import type { StreamRequest } from "./run-scope.js";
import { CompletedMessages } from "./messages-mode.js";
import { checkpointsPayload, debugPayload, MAX_VALUES_EVENT_BYTES, plain, plainJson, taskPayload, updatesPayload, VALUES_OMITTED_EVENT, valuesPayload } from "./stream-payloads.js";

/** The stream modes that come from LangGraph's graph stream. */
export const GRAPH_STREAM_MODES: readonly string[] = ["values", "updates", "checkpoints", "tasks", "debug"];

interface StreamableGraph {
  invoke(input: never, config: Record<string, unknown>): Promise<unknown>;
  stream(input: never, config: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}

export interface StreamGraphOptions {
  stream: StreamRequest;
  /** The agent path (`lead`, `lead/<taskToolCallId>`, …): its namespace names a child's events. */
  agent: string;
  /** Without a checkpointer the last state is the run's result: `values` is streamed (not emitted unless asked). */
  keepLastValues: boolean;
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
  if (modes.size === 0) {
    await graph.invoke(input as never, config);
    return undefined;
  }
  let last: Record<string, unknown> | undefined;
  for await (const chunk of await graph.stream(input as never, { ...config, streamMode: [...modes] })) {
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
