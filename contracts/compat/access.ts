/**
 * Reading array and object facets: which subschemas govern position `i` or property
 * `key` (a conjunction over every record, since `allOf` may contribute several).
 */
import { shapeOf } from "./build.js";
import { regexOf } from "./strings.js";
import type { ArrayFacet, ObjectFacet, ObjectRecord, Ref } from "./types.js";

export function prefixLength(arr: ArrayFacet): number {
  return Math.max(0, ...arr.records.map((r) => r.prefix.length));
}

/** Subschemas that apply to the item at position `i`. */
export function itemRefs(arr: ArrayFacet, i: number): Ref[] {
  return arr.records.flatMap((r) => {
    const ref = i < r.prefix.length ? r.prefix[i] : r.rest;
    return ref ? [ref] : [];
  });
}

/** A subschema no value passes (cheap check). */
export function isEmptyRef(ref: Ref): boolean {
  return ref.node === false || shapeOf(ref).atoms.length === 0;
}

export function minItemsOf(arr: ArrayFacet): number {
  return Math.max(0, ...arr.minItems.map((m) => m.value));
}

/** The longest admitted array: `maxItems`, or where a position admits nothing. */
export function maxItemsOf(arr: ArrayFacet): number {
  let max = Math.min(Infinity, ...arr.maxItems.map((m) => m.value));
  const prefix = prefixLength(arr);
  for (let i = 0; i < Math.min(prefix, max); i++) {
    if (itemRefs(arr, i).some(isEmptyRef)) return i;
  }
  for (const r of arr.records) if (r.rest && isEmptyRef(r.rest)) max = Math.min(max, r.prefix.length);
  return max;
}

export function matches(pattern: string, key: string): boolean {
  return regexOf(pattern)?.test(key) ?? false;
}

/** Subschemas that apply to the value of `key` within one record. */
export function recordRefs(record: ObjectRecord, key: string): Ref[] {
  const out: Ref[] = [];
  const own = record.props.get(key);
  if (own) out.push(own);
  for (const [pattern, ref] of record.patterns) if (matches(pattern, key)) out.push(ref);
  if (out.length === 0 && record.additional) out.push(record.additional);
  return out;
}

export function propRefs(obj: ObjectFacet, key: string): Ref[] {
  return obj.records.flatMap((r) => recordRefs(r, key));
}

export function propNames(obj: ObjectFacet): string[] {
  return [...new Set(obj.records.flatMap((r) => [...r.props.keys()]))];
}

export function patternNames(obj: ObjectFacet): string[] {
  return [...new Set(obj.records.flatMap((r) => [...r.patterns.keys()]))];
}

/** Whether some value of `key` is admitted (cheap). */
export function allowsKey(obj: ObjectFacet, key: string): boolean {
  return !propRefs(obj, key).some(isEmptyRef);
}

/** `required` closed under `dependentRequired`. */
export function effectiveRequired(obj: ObjectFacet, extra: string[] = []): Set<string> {
  const out = new Set([...obj.required.keys(), ...extra]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const dep of obj.depRequired) {
      if (!out.has(dep.key)) continue;
      for (const name of dep.names) if (!out.has(name)) (out.add(name), (grew = true));
    }
  }
  return out;
}

/** Keys that are not named anywhere and match no pattern can hold only `additionalProperties`. */
export function isClosed(obj: ObjectFacet): boolean {
  return obj.records.some((r) => r.patterns.size === 0 && r.additional !== undefined && isEmptyRef(r.additional));
}

export function minPropertiesOf(obj: ObjectFacet): number {
  return Math.max(0, effectiveRequired(obj).size, ...obj.minProperties.map((m) => m.value));
}

export function maxPropertiesOf(obj: ObjectFacet): number {
  let max = Math.min(Infinity, ...obj.maxProperties.map((m) => m.value));
  const closed = obj.records.filter((r) => r.patterns.size === 0 && r.additional !== undefined && isEmptyRef(r.additional));
  for (const r of closed) max = Math.min(max, [...r.props.keys()].filter((k) => allowsKey(obj, k)).length);
  return max;
}
