import { toPlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks, HookName, Plugin } from "../../kernel/plugin/types.js";

/** An in-place change PluginTester saw: the hook changed a value it was handed. */
export interface InPlaceMutation {
  hook: HookName;
  /** What changed: a channel (`messages`) or a request field (`request.messages`). */
  path: string;
}

/**
 * A structural fingerprint of a value: own enumerable properties at every depth (class
 * instances such as messages included), so an in-place edit anywhere changes it. Functions
 * count by presence only; cycles are cut.
 */
export function fingerprint(value: unknown, seen: Set<object> = new Set()): string {
  if (value === undefined) return "u";
  if (typeof value === "function") return "f";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (seen.has(value)) return "~";
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => fingerprint(item, seen)).join(",")}]`;
  } else {
    const entries = Object.keys(value).map((key) => `${JSON.stringify(key)}:${fingerprint((value as Record<string, unknown>)[key], seen)}`);
    out = `${value.constructor?.name ?? ""}{${entries.join(",")}}`;
  }
  seen.delete(value);
  return out;
}

function fingerprints(record: object): Map<string, string> {
  return new Map(Object.keys(record).map((key) => [key, fingerprint((record as Record<string, unknown>)[key])]));
}

function changedKeys(before: Map<string, string>, record: object): string[] {
  const after = fingerprints(record);
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key));
}

const STATE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
const WRAP_HOOKS = ["wrapModelCall", "wrapToolCall"] as const;

/**
 * The plugin with every hook wrapped to watch what it is handed: a state hook's channels
 * (compared when it returns), a wrap hook's request and its `state` (compared when it calls
 * `next`, or returns without calling it). Each change is passed to `record`; the hook's
 * behaviour is otherwise unchanged. The manifest is the plugin's own.
 */
export function watchInPlaceMutations(plugin: Plugin, record: (mutation: InPlaceMutation) => void): Plugin {
  const hooks: Record<string, unknown> = {};
  for (const hook of STATE_HOOKS) {
    const fn = plugin.hooks[hook];
    if (fn === undefined) continue;
    hooks[hook] = async (state: Readonly<Record<string, unknown>>, ctx: Parameters<NonNullable<Hooks["beforeModel"]>>[1]) => {
      const before = fingerprints(state);
      try {
        return await fn(state, ctx);
      } finally {
        for (const path of changedKeys(before, state)) record({ hook, path });
      }
    };
  }
  for (const hook of WRAP_HOOKS) {
    const fn = plugin.hooks[hook] as ((request: object, next: (r?: unknown) => Promise<unknown>, ctx: unknown) => Promise<unknown>) | undefined;
    if (fn === undefined) continue;
    hooks[hook] = async (request: object, next: (r?: unknown) => Promise<unknown>, ctx: unknown) => {
      const { state, ...fields } = request as { state?: object };
      const before = fingerprints(fields);
      const beforeState = fingerprints(state ?? {});
      let checked = false;
      const check = () => {
        if (checked) return;
        checked = true;
        const { state: _state, ...now } = request as { state?: object };
        for (const key of changedKeys(before, now)) record({ hook, path: `request.${key}` });
        for (const key of changedKeys(beforeState, state ?? {})) record({ hook, path: key });
      };
      const watchedNext = (req?: unknown) => {
        check();
        return req === undefined ? next() : next(req);
      };
      try {
        return await fn(request, watchedNext, ctx);
      } finally {
        check();
      }
    };
  }
  return toPlugin({ manifest: plugin.manifest, hooks: hooks as Hooks, ...(plugin.tools ? { tools: plugin.tools } : {}), ...(plugin.services ? { services: plugin.services } : {}) });
}
