/** Intersection (`allOf`) and union (`anyOf`) of shapes, atom by atom. */
import { cheaplyEmpty, newAtom, newShape, scalarAccepts } from "./atoms.js";
import { canonical } from "./json.js";
import type { Atom, JsonType, Shape } from "./types.js";

export function intersect(a: Shape, b: Shape): Shape {
  const atoms: Atom[] = [];
  for (const x of a.atoms) {
    for (const y of b.atoms) {
      if (x.type !== y.type) continue;
      const merged = mergeAtoms(x, y);
      if (!cheaplyEmpty(merged)) atoms.push(merged);
    }
  }
  return newShape(atoms);
}

function mergeAtoms(x: Atom, y: Atom): Atom {
  let values = x.values ?? y.values;
  if (x.values && y.values) {
    const keep = new Set(y.values.items.map((v) => canonical(v.value)));
    values = { items: x.values.items.filter((v) => keep.has(canonical(v.value))), kw: x.values.kw === "const" || y.values.kw === "const" ? "const" : "enum" };
  }
  const typePtr = y.typePtr ?? x.typePtr;
  const merged = newAtom(x.type, {
    ...(typePtr ? { typePtr } : {}),
    ...(values ? { values } : {}),
    nots: [...x.nots, ...y.nots],
    opaque: [...x.opaque, ...y.opaque],
    oneOf: [...x.oneOf, ...y.oneOf],
    ...(x.inexact || y.inexact ? { inexact: (x.inexact ?? y.inexact)! } : {}),
  });
  if (x.num && y.num) {
    merged.num = {
      integer: x.num.integer || y.num.integer,
      lower: [...x.num.lower, ...y.num.lower],
      upper: [...x.num.upper, ...y.num.upper],
      multipleOf: [...x.num.multipleOf, ...y.num.multipleOf],
      formats: [...x.num.formats, ...y.num.formats],
    };
  }
  if (x.str && y.str) {
    merged.str = {
      minLength: [...x.str.minLength, ...y.str.minLength],
      maxLength: [...x.str.maxLength, ...y.str.maxLength],
      patterns: [...x.str.patterns, ...y.str.patterns],
      formats: [...x.str.formats, ...y.str.formats],
    };
  }
  if (x.arr && y.arr) {
    const unique = x.arr.unique ?? y.arr.unique;
    merged.arr = {
      minItems: [...x.arr.minItems, ...y.arr.minItems],
      maxItems: [...x.arr.maxItems, ...y.arr.maxItems],
      ...(unique ? { unique } : {}),
      records: [...x.arr.records, ...y.arr.records],
    };
  }
  if (x.obj && y.obj) {
    merged.obj = {
      required: new Map([...x.obj.required, ...y.obj.required]),
      minProperties: [...x.obj.minProperties, ...y.obj.minProperties],
      maxProperties: [...x.obj.maxProperties, ...y.obj.maxProperties],
      records: [...x.obj.records, ...y.obj.records],
      depRequired: [...x.obj.depRequired, ...y.obj.depRequired],
      depSchemas: [...x.obj.depSchemas, ...y.obj.depSchemas],
    };
  }
  return merged;
}

export const SCALARS = new Set<JsonType>(["null", "boolean", "number", "string"]);

function isPlainValueAtom(a: Atom): boolean {
  return a.values !== undefined && SCALARS.has(a.type) && a.nots.length === 0 && a.opaque.length === 0 && a.oneOf.length === 0 && !a.inexact;
}

/**
 * The union of shapes. Scalar atoms that are only finite sets (a union of literals) are
 * merged into one atom per type, so `anyOf: [{const: "a"}, {const: "b"}]` reads like
 * `enum: ["a", "b"]`.
 */
export function union(shapes: Shape[]): Shape {
  const atoms: Atom[] = [];
  const byType = new Map<JsonType, Atom>();
  for (const atom of shapes.flatMap((s) => s.atoms)) {
    const kept = isPlainValueAtom(atom) ? atom.values!.items.filter((v) => scalarAccepts(atom, v.value) !== "no") : undefined;
    if (!kept || kept.some((v) => scalarAccepts(atom, v.value) === "unknown")) {
      atoms.push(atom);
      continue;
    }
    const seen = byType.get(atom.type);
    if (!seen) {
      const fresh = newAtom(atom.type, { ...(atom.typePtr ? { typePtr: atom.typePtr } : {}), values: { items: kept, kw: atom.values!.kw } });
      byType.set(atom.type, fresh);
      atoms.push(fresh);
      continue;
    }
    const have = new Set(seen.values!.items.map((v) => canonical(v.value)));
    seen.values = { items: [...seen.values!.items, ...kept.filter((v) => !have.has(canonical(v.value)))], kw: "enum" };
  }
  return newShape(atoms);
}
