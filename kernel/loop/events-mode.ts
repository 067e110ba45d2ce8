/**
 * LangGraph's `events` stream mode as the LangGraph Agent Server (`@langchain/langgraph-api`
 * 1.5.1, its `stream.mjs`) sends it: the run goes through `graph.streamEvents(input,
 * { version: "v2", streamMode })`; the graph's own `on_chain_stream` events are its stream
 * chunks (the other modes), every other LangChain event goes out as an `events` event whose
 * data is the event itself — `{ event, name, run_id, tags, metadata, data }` (LangChain JS
 * sends no `parent_ids`) — except those tagged `langsmith:hidden`. Only a run whose client
 * asked for `events` is run this way. Keel's runtime bookkeeping is left out of every event:
 * state keys starting with `__` (also inside a node's `Command` update), and the run's lease
 * fence and live-run key in `metadata`.
 */
import { Command } from "@langchain/langgraph";
import { RUN_KEY_CONFIG } from "./config-keys.js";
import { FENCE_CONFIG_KEY } from "./fenced-saver.js";
import { plain, publicState } from "./stream-payloads.js";

/** One event of LangChain's `streamEvents` v2. */
export interface StreamEventV2 {
  event: string;
  name: string;
  run_id: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

interface EventStreamingGraph {
  streamEvents(input: never, config: Record<string, unknown>): AsyncIterable<unknown>;
}

/**
 * The graph's stream chunks (`[mode, payload]`) while every other event is handed to
 * `onEvent`. The graph's run is the first event's (its `on_chain_start`); with `subgraphs`,
 * as on the server, every `on_chain_stream` is a chunk, never an `events` event.
 */
export async function* chunksWithEvents(graph: EventStreamingGraph, input: unknown, config: Record<string, unknown>, subgraphs: boolean, onEvent: (data: Record<string, unknown>) => void): AsyncGenerator<unknown> {
  let root: string | undefined;
  for await (const raw of graph.streamEvents(input as never, { ...config, version: "v2" })) {
    const event = raw as StreamEventV2;
    root ??= event.run_id;
    if (event.tags?.includes("langsmith:hidden")) continue;
    if (event.event === "on_chain_stream" && (subgraphs || event.run_id === root)) {
      if (event.run_id === root) yield (event.data as { chunk: unknown }).chunk;
      continue;
    }
    onEvent(eventPayload(event));
  }
}

/** An `events` event's data: the LangChain event as plain JSON, without Keel's runtime keys. */
export function eventPayload(event: StreamEventV2): Record<string, unknown> {
  const data = Object.fromEntries(Object.entries(event.data ?? {}).map(([key, value]) => [key, publicValue(value)]));
  return plain({ ...event, metadata: publicMetadata(event.metadata), data });
}

function publicMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata ?? {}).filter(([key]) => !key.startsWith("__") && key !== FENCE_CONFIG_KEY && key !== RUN_KEY_CONFIG));
}

/** A node's input or output: a state (or a `Command` that updates one) without the `__` keys. */
function publicValue(value: unknown): unknown {
  if (value instanceof Command) return { ...plain<Record<string, unknown>>(value), update: publicState(value.update) };
  if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as { toDict?: unknown }).toDict === "function") return value;
  return publicState(value);
}
