import { KeelError } from "../errors.js";
import { isPlainObject } from "../../contracts/plain-object.js";

function frozenError(what: string): KeelError {
  return new KeelError("KEEL_ERR_COMPOSITION_FROZEN", `a composition is frozen: cannot ${what}; compose a new stack instead`);
}

/** A Map whose mutators throw `KEEL_ERR_COMPOSITION_FROZEN` once built. */
export class FrozenMap<K, V> extends Map<K, V> {
  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    Object.freeze(this);
  }
  override set(key: K): never {
    throw frozenError(`set ${JSON.stringify(String(key))}`);
  }
  override delete(key: K): never {
    throw frozenError(`delete ${JSON.stringify(String(key))}`);
  }
  override clear(): never {
    throw frozenError("clear it");
  }
}

/** Freeze plain objects and arrays, recursively (class instances such as plugins are left alone). */
export function deepFreeze<T>(value: T): T {
  if (Array.isArray(value) || isPlainObject(value)) {
    if (Object.isFrozen(value)) return value;
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}
