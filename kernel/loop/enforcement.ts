import { BaseMessage } from "@langchain/core/messages";
import { isPlainObject } from "../../contracts/plain-object.js";
import { KeelError } from "../errors.js";

/**
 * Run-time enforcement of the manifest for what hooks are handed (kernel README, "Enforcement").
 * Written values are deep-frozen once, when written (O(what was written)); the top-level value
 * of a channel, which a reducer rebuilds on every write, is handed to a hook behind a guard
 * that refuses writes (O(1) per channel a hook sees).
 */

const frozen = new WeakSet<object>();

function freezable(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  return Array.isArray(value) || isPlainObject(value) || BaseMessage.isInstance(value);
}

/**
 * Deep-freeze plain data and LangChain messages (after the reducers assigned message ids).
 * Subtrees frozen before are skipped, so each value is walked once in its lifetime.
 */
export function freezeWritten<T>(value: T): T {
  if (!freezable(value) || frozen.has(value)) return value;
  frozen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeWritten((value as Record<string, unknown>)[key]);
  return value;
}

/**
 * Freeze a new list whose items are all frozen already (a copy of a channel's history, whose
 * messages were frozen when written): the list is not walked again when handed on.
 */
export function freezeListOfFrozen<T extends readonly unknown[]>(list: T): T {
  frozen.add(list);
  return Object.freeze(list);
}

const targets = new WeakMap<object, object>();
/** One guard per (value, plugin, hook, channel): a hook sees the same object for the same value (identity checks keep working). */
const guards = new WeakMap<object, Map<WriteGuard, object>>();

/**
 * What refuses writes for one (plugin, hook, channel): a proxy handler built once and shared
 * by the guards of every value that channel takes, so a hook's view costs a lookup and, for
 * a value not seen before, one `Proxy` (no handler, closure or key string per view).
 */
export class WriteGuard {
  readonly handler: ProxyHandler<object>;
  constructor(plugin: string, hook: string, channel: string) {
    const refuse = (): never => {
      throw undeclaredEdit(plugin, hook, `\`${channel}\``);
    };
    this.handler = { set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse, preventExtensions: refuse };
  }
}

export function undeclaredEdit(plugin: string, hook: string, what: string): KeelError {
  return new KeelError(
    "KEEL_ERR_HOOK_UNDECLARED_MUTATION",
    `plugin \`${plugin}\` changed ${what} in place in ${hook}; hooks never edit what they are handed: return an update of a channel declared in \`mutates\` (wrap hooks: pass a new request to next / return a new response, with \`mutates\` on the pseudo-channel)`,
    { plugin, hook },
  );
}

/** A read-only view of a channel's top-level value: any write through it throws, naming plugin and hook (`guard`'s). */
export function guardValue<T>(value: T, guard: WriteGuard): T {
  if (typeof value !== "object" || value === null || !(Array.isArray(value) || isPlainObject(value))) return value;
  // A frozen value refuses writes itself: a strict-mode write throws a TypeError the runner blames on the hook.
  if (Object.isFrozen(value)) return value;
  let perValue = guards.get(value);
  if (!perValue) guards.set(value, (perValue = new Map()));
  const existing = perValue.get(guard);
  if (existing) return existing as T;
  const proxy = new Proxy(value as object, guard.handler);
  targets.set(proxy, value as object);
  perValue.set(guard, proxy);
  return proxy as T;
}

/** The value behind a guard (a hook may hand back what it was given). */
export function unguard<T>(value: T): T {
  return (typeof value === "object" && value !== null ? (targets.get(value) as T | undefined) : undefined) ?? value;
}

const FROZEN_WRITE = /read[- ]only property|object is not extensible|Cannot (assign|add|delete|redefine|define) property|Cannot freeze|frozen/i;

/** Whether an error is the TypeError a strict-mode write to a frozen value raises. */
export function isFrozenWrite(error: unknown): boolean {
  return error instanceof TypeError && FROZEN_WRITE.test(error.message);
}

/**
 * A cheap fingerprint of a response (a message handed to a wrap hook that may not change it):
 * every container it reaches and every leaf, by identity, so comparing two is O(its size)
 * without serializing strings.
 */
export function snapshot(value: unknown): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    out.push(v);
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    const keys = Object.keys(v);
    out.push(keys.length);
    for (const key of keys) {
      out.push(key);
      walk((v as Record<string, unknown>)[key]);
    }
  };
  walk(value);
  return out;
}

export function sameSnapshot(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
