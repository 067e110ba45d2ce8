/** Creating atoms and shapes, and what one atom alone says about a value. */
import { canonical } from "./json.js";
import { emptyNumberFacet, isEmptyNumber, numberAccepts } from "./numbers.js";
import { emptyStringFacet, isEmptyString, stringAccepts } from "./strings.js";
import type { Atom, JsonType, Shape, Tri } from "./types.js";

let nextId = 1;

/** A fresh id (atoms, shapes and nodes are compared and memoized by id). */
export function freshId(): number {
  return nextId++;
}

export function newShape(atoms: Atom[]): Shape {
  return { id: nextId++, atoms };
}

export function newAtom(type: JsonType, init: Partial<Omit<Atom, "id" | "type">> = {}): Atom {
  const atom: Atom = { nots: [], opaque: [], oneOf: [], ...init, id: nextId++, type };
  if (type === "number") atom.num ??= emptyNumberFacet();
  if (type === "string") atom.str ??= emptyStringFacet();
  if (type === "array") atom.arr ??= { minItems: [], maxItems: [], records: [] };
  if (type === "object") atom.obj ??= { required: new Map(), minProperties: [], maxProperties: [], records: [], depRequired: [], depSchemas: [] };
  return atom;
}

/** Contradictions visible without looking into subschemas. */
export function cheaplyEmpty(a: Atom): boolean {
  if (a.values && a.values.items.length === 0) return true;
  if (a.num && isEmptyNumber(a.num)) return true;
  if (a.str && isEmptyString(a.str)) return true;
  if (a.arr && Math.max(0, ...a.arr.minItems.map((m) => m.value)) > Math.min(Infinity, ...a.arr.maxItems.map((m) => m.value))) return true;
  if (a.obj && Math.max(0, ...a.obj.minProperties.map((m) => m.value)) > Math.min(Infinity, ...a.obj.maxProperties.map((m) => m.value))) return true;
  return false;
}

/** Whether a scalar value passes an atom's own keywords (values and facet; not `not`/opaque). */
export function scalarAccepts(a: Atom, v: unknown): Tri {
  if (a.values && !a.values.items.some((item) => canonical(item.value) === canonical(v))) return "no";
  if (a.num) return typeof v === "number" ? numberAccepts(a.num, v) : "no";
  if (a.str) return typeof v === "string" ? stringAccepts(a.str, v) : "no";
  return "yes";
}
