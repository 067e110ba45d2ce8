/**
 * Reading a schema location into a Shape (types.ts): local keywords become per-type
 * atoms, then `$ref`, `allOf` (intersection), `anyOf` (union) and `oneOf` (union, with
 * each atom remembering its branch unless the branches are cheaply disjoint) are folded in.
 */
import { resolveRef, sub } from "./doc.js";
import { NUMBER_FORMATS } from "./formats.js";
import { canonical, child, jsonType } from "./json.js";
import { isRecord } from "../plain-object.js";
import { OPAQUE_KEYWORDS } from "./keywords.js";
import { idOf } from "./same.js";
import { intersect, SCALARS, union } from "./algebra.js";
import { cheaplyEmpty, freshId, newAtom, newShape, scalarAccepts } from "./atoms.js";
import type { ArrayRecord, Atom, Bound, JsonType, ObjectRecord, Opaque, Ref, Shape, Sourced } from "./types.js";
import { JSON_TYPES } from "./types.js";

const cache = new WeakMap<object, WeakMap<object, Shape>>();
const building = new Set<object>();
const TRUE_SHAPE_ATOMS = () => JSON_TYPES.map((t) => newAtom(t));

/** The shape of a schema location (cached per document and node). */
export function shapeOf(ref: Ref): Shape {
  const node = ref.node;
  if (node === true) return newShape(TRUE_SHAPE_ATOMS());
  if (node === false) return newShape([]);
  if (!isRecord(node)) return newShape(JSON_TYPES.map((t) => newAtom(t, { inexact: `\`${ref.ptr}\` is not a schema` })));
  let perDoc = cache.get(ref.doc);
  if (!perDoc) cache.set(ref.doc, (perDoc = new WeakMap()));
  const hit = perDoc.get(node);
  if (hit) return hit;
  if (building.has(node)) {
    return newShape(JSON_TYPES.map((t) => newAtom(t, { inexact: `\`${ref.ptr}\` refers to itself without descending into the instance` })));
  }
  building.add(node);
  try {
    const shape = build(ref, node);
    perDoc.set(node, shape);
    return shape;
  } finally {
    building.delete(node);
  }
}

function build(ref: Ref, node: Record<string, unknown>): Shape {
  let shape = baseShape(ref, node);
  if (typeof node.$ref === "string") {
    const target = resolveRef(ref.doc, node.$ref);
    if (!target) {
      const opaque: Opaque = { kw: "$ref", key: canonical(node.$ref), ptr: child(ref.ptr, "$ref"), owner: ref };
      shape = newShape(shape.atoms.map((a) => ({ ...a, id: freshId(), opaque: [...a.opaque, opaque] })));
    } else {
      shape = intersect(shape, shapeOf(target));
    }
  }
  for (const branch of branches(ref, "allOf")) shape = intersect(shape, shapeOf(branch));
  const anyOf = branches(ref, "anyOf");
  if (anyOf.length > 0) shape = intersect(shape, union(anyOf.map(shapeOf)));
  const oneOf = branches(ref, "oneOf");
  if (oneOf.length > 0) {
    const shapes = oneOf.map(shapeOf);
    const group = { ptr: child(ref.ptr, "oneOf"), branches: oneOf };
    const tagged = pairwiseDisjoint(shapes)
      ? shapes
      : shapes.map((s, index) => newShape(s.atoms.map((a) => ({ ...a, id: freshId(), oneOf: [...a.oneOf, { group, index }] }))));
    shape = intersect(shape, union(tagged));
  }
  return shape;
}

function branches(ref: Ref, kw: string): Ref[] {
  const list = (ref.node as Record<string, unknown>)[kw];
  return Array.isArray(list) ? list.map((_, i) => sub(ref, kw, i)!) : [];
}

function sourcedNumber(ref: Ref, node: Record<string, unknown>, kw: string): Sourced<number>[] {
  const v = node[kw];
  return typeof v === "number" && Number.isFinite(v) ? [{ value: v, ptr: child(ref.ptr, kw) }] : [];
}

function bounds(ref: Ref, node: Record<string, unknown>, lower: boolean): Bound[] {
  const [inclusive, exclusive] = lower ? (["minimum", "exclusiveMinimum"] as const) : (["maximum", "exclusiveMaximum"] as const);
  const out: Bound[] = [];
  const plain = node[inclusive];
  const ex = node[exclusive];
  // draft-04 spelled an exclusive bound as `minimum` plus `exclusiveMinimum: true`.
  if (typeof plain === "number") out.push({ value: plain, exclusive: ex === true, kw: ex === true ? exclusive : inclusive, ptr: child(ref.ptr, inclusive) });
  if (typeof ex === "number") out.push({ value: ex, exclusive: true, kw: exclusive, ptr: child(ref.ptr, exclusive) });
  return out;
}

function typesOf(node: Record<string, unknown>): { types: Set<JsonType>; integer: boolean } {
  const raw = node.type;
  const names = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.filter((t): t is string => typeof t === "string") : undefined;
  if (!names) return { types: new Set(JSON_TYPES), integer: false };
  const types = new Set(names.filter((t): t is JsonType => (JSON_TYPES as readonly string[]).includes(t)));
  const integer = names.includes("integer") && !types.has("number");
  if (names.includes("integer")) types.add("number");
  return { types, integer };
}

function baseShape(ref: Ref, node: Record<string, unknown>): Shape {
  const { types, integer } = typesOf(node);
  const typePtr = node.type === undefined ? undefined : child(ref.ptr, "type");
  let values: Sourced<unknown>[] | undefined;
  let valuesKw: "enum" | "const" = "enum";
  if (Array.isArray(node.enum)) values = node.enum.map((value) => ({ value, ptr: child(ref.ptr, "enum") }));
  if (node.const !== undefined) {
    const constant = canonical(node.const);
    values = (values ?? [{ value: node.const, ptr: child(ref.ptr, "const") }]).filter((v) => canonical(v.value) === constant);
    valuesKw = "const";
  }
  const nots = node.not === undefined ? [] : [sub(ref, "not")!];
  const opaque = opaqueOf(ref, node);
  const atoms: Atom[] = [];
  for (const type of types) {
    const own = values?.filter((v) => jsonType(v.value) === type);
    if (own && own.length === 0) continue;
    const atom = newAtom(type, {
      ...(typePtr ? { typePtr } : {}),
      ...(own ? { values: { items: own, kw: valuesKw } } : {}),
      nots: [...nots],
      opaque: opaque.filter((o) => appliesTo(o.kw, type)),
    });
    if (type === "number") {
      const formats = typeof node.format === "string" && NUMBER_FORMATS.has(node.format) ? [{ value: node.format, ptr: child(ref.ptr, "format") }] : [];
      const multipleOf = sourcedNumber(ref, node, "multipleOf").filter((m) => m.value > 0);
      atom.num = { integer, lower: bounds(ref, node, true), upper: bounds(ref, node, false), multipleOf, formats };
    } else if (type === "string") {
      const format = typeof node.format === "string" && !NUMBER_FORMATS.has(node.format) ? [{ value: node.format, ptr: child(ref.ptr, "format") }] : [];
      const pattern = typeof node.pattern === "string" ? [{ value: node.pattern, ptr: child(ref.ptr, "pattern") }] : [];
      atom.str = { minLength: sourcedNumber(ref, node, "minLength"), maxLength: sourcedNumber(ref, node, "maxLength"), patterns: pattern, formats: format };
    } else if (type === "array") {
      const record = arrayRecord(ref, node);
      atom.arr = {
        minItems: sourcedNumber(ref, node, "minItems"),
        maxItems: sourcedNumber(ref, node, "maxItems"),
        ...(node.uniqueItems === true ? { unique: child(ref.ptr, "uniqueItems") } : {}),
        records: record ? [record] : [],
      };
    } else if (type === "object") {
      atom.obj = objectFacet(ref, node);
    }
    atoms.push(atom);
  }
  return newShape(atoms.filter((a) => !cheaplyEmpty(a)));
}

function appliesTo(kw: string, type: JsonType): boolean {
  const spec = OPAQUE_KEYWORDS[kw];
  return !spec || spec.types === "all" || spec.types.includes(type);
}

function opaqueOf(ref: Ref, node: Record<string, unknown>): Opaque[] {
  const out: Opaque[] = [];
  for (const [kw, spec] of Object.entries(OPAQUE_KEYWORDS)) {
    if (node[kw] === undefined) continue;
    const parts = Object.fromEntries([kw, ...spec.with].filter((k) => node[k] !== undefined).map((k) => [k, node[k]]));
    // A `$ref` inside makes equal text no proof of an equal schema: such keywords never match across documents.
    const key = canonical(parts);
    out.push({ kw, key: key.includes('"$ref"') ? `${key}@${idOf(ref.doc)}` : key, ptr: child(ref.ptr, kw), owner: ref });
  }
  return out;
}

function arrayRecord(ref: Ref, node: Record<string, unknown>): ArrayRecord | undefined {
  const schemaAt = (kw: string) => (node[kw] !== undefined && !Array.isArray(node[kw]) ? sub(ref, kw) : undefined);
  const listAt = (kw: string) => (Array.isArray(node[kw]) ? (node[kw] as unknown[]).map((_, i) => sub(ref, kw, i)!) : undefined);
  let prefix: Ref[] = [];
  let rest: Ref | undefined;
  if (Array.isArray(node.prefixItems)) {
    prefix = listAt("prefixItems")!;
    rest = schemaAt("items");
  } else if (Array.isArray(node.items)) {
    prefix = listAt("items")!;
    if (ref.doc.legacy) rest = schemaAt("additionalItems");
  } else {
    rest = schemaAt("items");
  }
  if (prefix.length === 0 && rest === undefined) return undefined;
  return { ptr: ref.ptr, prefix, ...(rest ? { rest } : {}) };
}

function objectFacet(ref: Ref, node: Record<string, unknown>): NonNullable<Atom["obj"]> {
  const entries = (kw: string) => (isRecord(node[kw]) ? Object.keys(node[kw] as object) : []);
  const props = new Map(entries("properties").map((k) => [k, sub(ref, "properties", k)!]));
  const patterns = new Map(entries("patternProperties").map((k) => [k, sub(ref, "patternProperties", k)!]));
  const additional = node.additionalProperties === undefined ? undefined : sub(ref, "additionalProperties");
  const records: ObjectRecord[] = props.size > 0 || patterns.size > 0 || additional ? [{ ptr: ref.ptr, props, patterns, ...(additional ? { additional } : {}) }] : [];
  const required = new Map<string, string>();
  if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === "string") required.set(name, child(ref.ptr, "properties", name));
  const depRequired: { key: string; names: string[]; ptr: string }[] = [];
  const depSchemas: { key: string; ref: Ref; ptr: string }[] = [];
  const readDeps = (kw: string, arrays: boolean, schemas: boolean) => {
    for (const key of entries(kw)) {
      const value = (node[kw] as Record<string, unknown>)[key];
      if (Array.isArray(value) && arrays) depRequired.push({ key, names: value.filter((n): n is string => typeof n === "string"), ptr: child(ref.ptr, kw, key) });
      else if (!Array.isArray(value) && schemas) depSchemas.push({ key, ref: sub(ref, kw, key)!, ptr: child(ref.ptr, kw, key) });
    }
  };
  readDeps("dependentRequired", true, false);
  readDeps("dependentSchemas", false, true);
  if (ref.doc.legacy) readDeps("dependencies", true, true);
  return {
    required,
    minProperties: sourcedNumber(ref, node, "minProperties"),
    maxProperties: sourcedNumber(ref, node, "maxProperties"),
    records,
    depRequired,
    depSchemas,
  };
}

/**
 * `oneOf` equals `anyOf` when no value can match two branches; decided here only by
 * type, disjoint finite sets, or a required property with disjoint constants.
 */
function pairwiseDisjoint(shapes: Shape[]): boolean {
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      for (const a of shapes[i]!.atoms) for (const b of shapes[j]!.atoms) if (a.type === b.type && !atomsCheaplyDisjoint(a, b)) return false;
    }
  }
  return true;
}

function constantsOf(atoms: Atom[]): Set<string> | undefined {
  if (atoms.length === 0 || !atoms.every((a) => a.values)) return undefined;
  return new Set(atoms.flatMap((a) => a.values!.items.map((v) => canonical(v.value))));
}

function atomsCheaplyDisjoint(a: Atom, b: Atom): boolean {
  const [va, vb] = [constantsOf([a]), constantsOf([b])];
  if (va && vb) return ![...va].some((v) => vb.has(v));
  if (va && SCALARS.has(a.type)) return a.values!.items.every((v) => scalarAccepts(b, v.value) === "no");
  if (vb && SCALARS.has(b.type)) return b.values!.items.every((v) => scalarAccepts(a, v.value) === "no");
  if (a.obj && b.obj) {
    for (const key of a.obj.required.keys()) {
      if (!b.obj.required.has(key)) continue;
      const propOf = (atom: Atom) => atom.obj!.records.map((r) => r.props.get(key)).find((r) => r !== undefined);
      const [pa, pb] = [propOf(a), propOf(b)];
      if (!pa || !pb) continue;
      const [ca, cb] = [constantsOf(shapeOf(pa).atoms), constantsOf(shapeOf(pb).atoms)];
      if (ca && cb && ![...ca].some((v) => cb.has(v))) return true;
    }
  }
  return false;
}

const nodeIds = new WeakMap<object, number>();
const conjCache = new Map<string, Shape>();

function nodeKey(ref: Ref): string {
  if (typeof ref.node !== "object" || ref.node === null) return String(ref.node);
  let id = nodeIds.get(ref.node);
  if (id === undefined) nodeIds.set(ref.node, (id = freshId()));
  return String(id);
}

/** The shape of all of `refs` at once (no refs: anything). */
export function conj(refs: Ref[]): Shape {
  if (refs.length === 1) return shapeOf(refs[0]!);
  if (refs.length === 0) return newShape(TRUE_SHAPE_ATOMS());
  const key = refs.map(nodeKey).join("&");
  let shape = conjCache.get(key);
  if (!shape) {
    shape = refs.map(shapeOf).reduce(intersect);
    if (conjCache.size > 5000) conjCache.clear();
    conjCache.set(key, shape);
  }
  return shape;
}

/** Keep only the atoms of `types`. */
export function restrict(shape: Shape, types: Set<JsonType>): Shape {
  return newShape(shape.atoms.filter((a) => types.has(a.type)));
}
