/**
 * LangGraph's stream chunks as the LangGraph Agent Server sends them (its `stream.mjs`):
 * plain JSON (LangChain messages as `{ ...data, type }`, as its `serialiseAsDict` writes
 * them; an `Overwrite` write as the value it writes), with Keel's runtime bookkeeping (state
 * keys starting with `__`, the run's lease fence in `configurable`) left out.
 */
import { Overwrite } from "@langchain/langgraph";
import { RUN_KEY_CONFIG } from "./config-keys.js";
import { FENCE_CONFIG_KEY } from "./fenced-saver.js";

/** A `values` event whose JSON is larger than this goes out as a `values/omitted` marker instead. */
export const MAX_VALUES_EVENT_BYTES = 1024 * 1024;

/** The marker event sent instead of a `values` event over `MAX_VALUES_EVENT_BYTES`. */
export const VALUES_OMITTED_EVENT = "values/omitted";

/** `value` as JSON text the way the LangGraph server writes it. */
export function plainJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, function (this: Record<string, unknown>, key: string, replaced: unknown) {
    const raw = this[key];
    if (raw === null || typeof raw !== "object") return replaced;
    if (typeof (raw as { toDict?: unknown }).toDict === "function") {
      const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
      return { ...data, type };
    }
    if (Overwrite.isInstance(raw)) return (raw as Overwrite<unknown>).value ?? null;
    return replaced;
  });
}

export function plain<T = unknown>(value: unknown): T {
  return JSON.parse(plainJson(value)) as T;
}

/** A state object (or one node's update) without the runtime's `__` keys. */
export function publicState(state: unknown): Record<string, unknown> {
  if (state === null || typeof state !== "object" || Array.isArray(state)) return {};
  return Object.fromEntries(Object.entries(state as Record<string, unknown>).filter(([key]) => !key.startsWith("__")));
}

/** A `values` chunk without the runtime's `__` keys; LangGraph's `__interrupt__` (the chunk a pause ends with) stays. */
export function valuesPayload(state: Record<string, unknown>): Record<string, unknown> {
  const out = publicState(state);
  if ("__interrupt__" in state) out.__interrupt__ = state.__interrupt__;
  return out;
}

/** `updates`: `{ <node>: <that node's state update> }`; LangGraph's own entries (`__interrupt__`) stay. */
export function updatesPayload(chunk: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [node, update] of Object.entries(chunk)) out[node] = node.startsWith("__") || update === null || typeof update !== "object" ? update : publicState(update);
  return plain(out);
}

/** A task's `result` (channel → written value), as LangGraph's `tasks` mode gives it, without runtime channels. */
function publicResult(result: unknown): unknown {
  if (Array.isArray(result)) return result.filter((w) => !(Array.isArray(w) && typeof w[0] === "string" && w[0].startsWith("__") && w[0] !== "__interrupt__"));
  return publicState(result);
}

/** One task of the `tasks` mode (or of a checkpoint's `tasks`): its input and result without runtime channels. */
export function taskPayload(task: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...task };
  if ("input" in out) out.input = publicState(out.input);
  if ("result" in out) out.result = publicResult(out.result);
  if ("state" in out && isConfig(out.state)) {
    // As the server does: a task's state config becomes its `checkpoint`.
    out.checkpoint = checkpointOf(out.state, false);
    delete out.state;
  }
  return out;
}

/** The `checkpoints` mode's data as the server sends it: `{ values, metadata, next }`. */
export function checkpointsPayload(chunk: Record<string, unknown>): Record<string, unknown> {
  return plain({ values: publicState(chunk.values), metadata: chunk.metadata, next: chunk.next });
}

/** A `debug` chunk: checkpoints and task results as the server preprocesses them. */
export function debugPayload(chunk: { type: string; payload: Record<string, unknown> } & Record<string, unknown>): Record<string, unknown> {
  if (chunk.type === "checkpoint") return plain({ ...chunk, payload: debugCheckpoint(chunk.payload) });
  return plain({ ...chunk, payload: taskPayload(chunk.payload) });
}

function debugCheckpoint(payload: Record<string, unknown>): Record<string, unknown> {
  const { parentConfig, ...rest } = payload;
  return {
    ...rest,
    values: publicState(payload.values),
    config: publicConfig(payload.config),
    checkpoint: checkpointOf(payload.config, true),
    parent_checkpoint: checkpointOf(parentConfig, true),
    tasks: ((payload.tasks as Record<string, unknown>[] | undefined) ?? []).map(taskPayload),
    parent_config: publicConfig(parentConfig),
  };
}

function isConfig(value: unknown): value is { configurable: Record<string, unknown> } {
  return value !== null && typeof value === "object" && typeof (value as { configurable?: unknown }).configurable === "object" && (value as { configurable?: unknown }).configurable !== null;
}

/** A config's `configurable` without the runtime's keys (`__…`, the lease fence, the live run's key) and without callbacks. */
function publicConfig(config: unknown): unknown {
  if (!isConfig(config)) return config;
  const { callbacks: _callbacks, ...rest } = config as Record<string, unknown>;
  const configurable = Object.fromEntries(Object.entries(config.configurable).filter(([key]) => !key.startsWith("__") && key !== FENCE_CONFIG_KEY && key !== RUN_KEY_CONFIG));
  return { ...rest, configurable };
}

function checkpointOf(config: unknown, needsId: boolean): Record<string, unknown> | null {
  if (!isConfig(config)) return null;
  const c = config.configurable;
  if (typeof c.thread_id !== "string" || !c.thread_id) return null;
  if (needsId && typeof c.checkpoint_id !== "string") return null;
  return { thread_id: c.thread_id, checkpoint_id: c.checkpoint_id ?? null, checkpoint_ns: (c.checkpoint_ns as string | undefined) || "", checkpoint_map: c.checkpoint_map ?? null };
}
