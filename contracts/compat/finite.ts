import { allowsKey, effectiveRequired, maxItemsOf, maxPropertiesOf, minItemsOf, minPropertiesOf } from "./access.js";
import { atomAccepts } from "./accepts.js";
import { cheaplyEmpty } from "./atoms.js";
import { enumerateNumbers } from "./numbers.js";
import { enumerateStrings } from "./strings.js";
import type { Atom } from "./types.js";

const finiteCache = new WeakMap<Atom, unknown[] | null>();

/**
 * Every value the atom admits, when that is a known finite set (an enum, `null`, the
 * booleans, a short integer range, `^(a|b)$`). Values the atom might admit are kept, so
 * the list is never smaller than the truth.
 */
export function finiteOf(atom: Atom): unknown[] | undefined {
  let hit = finiteCache.get(atom);
  if (hit === undefined) {
    hit = computeFinite(atom) ?? null;
    finiteCache.set(atom, hit);
  }
  return hit ?? undefined;
}

function computeFinite(atom: Atom): unknown[] | undefined {
  let candidates: unknown[] | undefined;
  if (atom.values) candidates = atom.values.items.map((v) => v.value);
  else if (atom.type === "null") candidates = [null];
  else if (atom.type === "boolean") candidates = [true, false];
  else if (atom.num) candidates = enumerateNumbers(atom.num);
  else if (atom.str) candidates = enumerateStrings(atom.str);
  return candidates?.filter((v) => atomAccepts(atom, v) !== "no");
}

/** The atom admits no value at all (decided cheaply; false means "not shown empty"). */
export function isEmptyAtom(atom: Atom): boolean {
  if (cheaplyEmpty(atom)) return true;
  const finite = finiteOf(atom);
  if (finite && finite.length === 0) return true;
  if (atom.arr && minItemsOf(atom.arr) > maxItemsOf(atom.arr)) return true;
  if (atom.obj) {
    if ([...effectiveRequired(atom.obj)].some((k) => !allowsKey(atom.obj!, k))) return true;
    if (minPropertiesOf(atom.obj) > maxPropertiesOf(atom.obj)) return true;
  }
  return false;
}

/** Reasoning over this atom's keywords alone describes it exactly (no `not`, unmodelled keyword, `oneOf` overlap, dependent schema). */
export function isExact(atom: Atom): boolean {
  return !atom.inexact && atom.nots.length === 0 && atom.opaque.length === 0 && atom.oneOf.length === 0 && (atom.obj?.depSchemas.length ?? 0) === 0;
}
