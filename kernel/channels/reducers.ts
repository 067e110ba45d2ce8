import { messagesStateReducer } from "@langchain/langgraph";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChannelReducer } from "../compose/types.js";
import { canonicalJson } from "../hashing.js";
import { isRecord } from "../../contracts/plain-object.js";
import { KeelError } from "../errors.js";
import { appendFresh } from "./message-index.js";

const NON_TERMINAL = new Set(["pending", "in_progress", "running", "queued"]);

/**
 * The one place that decides which reducers commute (the race check uses it too): writes to
 * `sum` (numbers only) and `append-set` channels give the same value in any order, so two
 * writers of such a channel never race.
 */
export function isCommutativeReducer(reducer: ChannelReducer): boolean {
  return reducer === "append-set" || reducer === "sum" || (typeof reducer === "object" && reducer.kind === "append-set");
}

/** The value a channel starts with before any write. */
export function initialValue(reducer: ChannelReducer): unknown {
  if (reducer === "messages" || reducer === "append" || reducer === "append-set") return [];
  if (typeof reducer === "object") return [];
  if (reducer === "sum") return {};
  return undefined;
}

function asList(update: unknown): unknown[] {
  return Array.isArray(update) ? update : [update];
}

function keyOf(item: unknown, fields: readonly string[] | undefined): string {
  if (!fields) return canonicalJson(item);
  const record = (item ?? {}) as Record<string, unknown>;
  return canonicalJson(fields.map((f) => record[f] ?? null));
}

/**
 * Deep numeric sum: numbers add, plain objects merge key by key. Anything else (a string, a
 * number where the value holds an object, NaN) is refused with `KEEL_ERR_CHANNEL_REDUCER`:
 * only numbers keep `sum` commutative.
 */
export function sumValues(current: unknown, update: unknown, path = ""): unknown {
  if (update === undefined) return current;
  if (typeof update === "number" && Number.isFinite(update)) {
    if (current === undefined) return update;
    if (typeof current === "number") return current + update;
  } else if (isRecord(update) && (current === undefined || isRecord(current))) {
    const out: Record<string, unknown> = { ...(current ?? {}) };
    for (const [key, value] of Object.entries(update)) out[key] = sumValues(out[key], value, `${path}/${key}`);
    return out;
  }
  throw new KeelError(
    "KEEL_ERR_CHANNEL_REDUCER",
    `the \`sum\` reducer cannot add ${describe(update)} to ${describe(current)} at \`${path || "/"}\`; write finite numbers, or objects whose leaves are numbers`,
    { pointer: path },
  );
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "number") return Number.isFinite(value) ? "a number" : String(value);
  if (isRecord(value)) return "an object";
  return Array.isArray(value) ? "a list" : `a ${value === null ? "null" : typeof value}`;
}

function mergeById(
  current: unknown[],
  update: unknown,
  spec: { key: string; guard?: "no-terminal-downgrade"; keepNewest?: number },
): unknown[] {
  const out = [...current];
  const index = new Map<unknown, number>();
  out.forEach((item, i) => index.set((item as Record<string, unknown>)?.[spec.key], i));
  for (const item of asList(update)) {
    const id = (item as Record<string, unknown>)?.[spec.key];
    const at = index.get(id);
    if (at === undefined) {
      index.set(id, out.length);
      out.push(item);
      continue;
    }
    const existing = out[at] as Record<string, unknown>;
    const incoming = item as Record<string, unknown>;
    if (spec.guard === "no-terminal-downgrade" && isTerminal(existing.status) && !isTerminal(incoming.status)) continue;
    out[at] = { ...existing, ...incoming };
  }
  return spec.keepNewest !== undefined && out.length > spec.keepNewest ? out.slice(out.length - spec.keepNewest) : out;
}

function isTerminal(status: unknown): boolean {
  return typeof status === "string" && !NON_TERMINAL.has(status);
}

/** Apply one update to a channel value with the channel's reducer. */
export function reduceChannel(reducer: ChannelReducer, current: unknown, update: unknown): unknown {
  const base = current === undefined ? initialValue(reducer) : current;
  if (reducer === "replace") return update;
  // The common step only appends new messages: that fast path gives what LangGraph's reducer gives, without rebuilding the history.
  if (reducer === "messages") return appendFresh(base as BaseMessage[], update) ?? messagesStateReducer(base as BaseMessage[], update as BaseMessage[]);
  if (reducer === "append") return [...(base as unknown[]), ...asList(update)];
  if (reducer === "sum") return sumValues(base, update);
  if (reducer === "append-set" || reducer.kind === "append-set") {
    const fields = typeof reducer === "object" ? reducer.key : undefined;
    const out = [...(base as unknown[])];
    const seen = new Set(out.map((item) => keyOf(item, fields)));
    for (const item of asList(update)) {
      const key = keyOf(item, fields);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(item);
      }
    }
    return out;
  }
  if (reducer.kind === "append") {
    const out = [...(base as unknown[]), ...asList(update)];
    return out.length > reducer.keepNewest ? out.slice(out.length - reducer.keepNewest) : out;
  }
  return mergeById(base as unknown[], update, reducer);
}
