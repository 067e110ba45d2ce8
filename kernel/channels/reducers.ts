import { messagesStateReducer } from "@langchain/langgraph";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChannelReducer } from "../compose/types.js";
import { canonicalJson } from "../hashing.js";
import { isRecord } from "../../contracts/plain-object.js";

const NON_TERMINAL = new Set(["pending", "in_progress", "running", "queued"]);

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

/** Deep numeric sum: numbers add, plain objects merge key by key, anything else is replaced. */
export function sumValues(current: unknown, update: unknown): unknown {
  if (typeof current === "number" && typeof update === "number") return current + update;
  if (isRecord(current) && isRecord(update)) {
    const out: Record<string, unknown> = { ...current };
    for (const [key, value] of Object.entries(update)) out[key] = key in out ? sumValues(out[key], value) : value;
    return out;
  }
  return update === undefined ? current : update;
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
  if (reducer === "messages") return messagesStateReducer(base as BaseMessage[], update as BaseMessage[]);
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
  return mergeById(base as unknown[], update, reducer);
}
