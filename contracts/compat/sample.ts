/**
 * Candidate values drawn from a Shape, used to look for a counterexample when reasoning
 * alone cannot decide. A candidate only proves something once `accepts` has confirmed
 * it on both schemas; the list is small and far from exhaustive.
 */
import { itemRefs, minItemsOf, maxItemsOf, effectiveRequired, patternNames, propNames, propRefs, prefixLength } from "./access.js";
import { conj } from "./build.js";
import { canonical } from "./json.js";
import { effectiveLower, effectiveUpper, gridOf } from "./numbers.js";
import { literalAlternatives, maxLengthOf, minLengthOf } from "./strings.js";
import type { Atom, Shape } from "./types.js";

const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2024-01-02T03:04:05Z",
  "iso-date-time": "2024-01-02T03:04:05",
  date: "2024-01-02",
  time: "03:04:05Z",
  "iso-time": "03:04:05",
  email: "a@example.com",
  uri: "https://example.com/a",
  "uri-reference": "a/b",
  url: "https://example.com/",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  hostname: "example.com",
  duration: "P1D",
  "json-pointer": "/a",
};

export function samples(shape: Shape, depth = 2): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const atom of shape.atoms) {
    for (const v of sampleAtom(atom, depth)) {
      const key = canonical(v);
      if (!seen.has(key)) (seen.add(key), out.push(v));
    }
  }
  return out;
}

function sampleAtom(atom: Atom, depth: number): unknown[] {
  if (atom.values) return atom.values.items.map((v) => v.value);
  switch (atom.type) {
    case "null":
      return [null];
    case "boolean":
      return [true, false];
    case "number":
      return sampleNumbers(atom);
    case "string":
      return sampleStrings(atom);
    case "array":
      return depth <= 0 ? [[]] : sampleArrays(atom, depth);
    case "object":
      return depth <= 0 ? [{}] : sampleObjects(atom, depth);
  }
}

function sampleNumbers(atom: Atom): number[] {
  const f = atom.num!;
  const step = gridOf(f) ?? 1;
  const lo = effectiveLower(f);
  const hi = effectiveUpper(f);
  const out = [0, 1, -1, 0.5, 2.5, -2.5, 10, 100, -100, 1e6, step, 2 * step, -step, 3 * step];
  for (const b of [lo, hi]) if (b) out.push(b.value, b.value + step, b.value - step, b.value + 0.5, b.value - 0.5, b.value + 1e-3, b.value - 1e-3);
  for (const b of [...f.lower, ...f.upper]) out.push(b.value, b.value + 1, b.value - 1);
  if (lo && hi) out.push((lo.value + hi.value) / 2);
  return out.filter(Number.isFinite);
}

function sampleStrings(atom: Atom): string[] {
  const f = atom.str!;
  const min = minLengthOf(f);
  const max = Math.min(maxLengthOf(f), min + 24);
  const out: string[] = [];
  for (const p of f.patterns) out.push(...(literalAlternatives(p.value) ?? []));
  for (const fmt of f.formats) if (FORMAT_EXAMPLES[fmt.value]) out.push(FORMAT_EXAMPLES[fmt.value]!);
  for (const len of new Set([min, min + 1, max, max - 1, 0, 1, 3, 8])) {
    if (len < min || len > max) continue;
    for (const ch of ["a", "0", "A", " ", "-"]) out.push(ch.repeat(len));
    out.push("ab1".repeat(len).slice(0, len));
  }
  return out;
}

function sampleArrays(atom: Atom, depth: number): unknown[][] {
  const arr = atom.arr!;
  const min = minItemsOf(arr);
  const max = Math.min(maxItemsOf(arr), Math.max(min, prefixLength(arr)) + 2);
  const out: unknown[][] = [];
  for (const len of new Set([min, min + 1, max, prefixLength(arr), prefixLength(arr) + 1])) {
    if (len < min || len > max || len > 6) continue;
    const items = Array.from({ length: len }, (_, i) => samples(conj(itemRefs(arr, i)), depth - 1));
    out.push(items.map((options) => options[0] ?? null));
    out.push(items.map((options) => options[1] ?? options[0] ?? null));
    if (len >= 2) out.push(items.map(() => items[0]![0] ?? null));
  }
  return out;
}

function sampleObjects(atom: Atom, depth: number): Record<string, unknown>[] {
  const obj = atom.obj!;
  const valueOf = (key: string, pick = 0) => samples(conj(propRefs(obj, key)), depth - 1)[pick] ?? null;
  const base: Record<string, unknown> = {};
  for (const key of effectiveRequired(obj)) base[key] = valueOf(key);
  const out: Record<string, unknown>[] = [base];
  const optional = propNames(obj).filter((k) => !(k in base));
  for (const key of optional) out.push({ ...base, [key]: valueOf(key) }, { ...base, [key]: valueOf(key, 1) });
  if (optional.length > 1) out.push({ ...base, ...Object.fromEntries(optional.map((k) => [k, valueOf(k)])) });
  for (const key of Object.keys(base)) out.push({ ...base, [key]: valueOf(key, 1) });
  for (const pattern of patternNames(obj)) {
    const prefix = /^\^([A-Za-z0-9_-]*)/.exec(pattern)?.[1] ?? "";
    const suffix = /([A-Za-z0-9_-]*)\$$/.exec(pattern)?.[1] ?? "";
    for (const key of new Set([`${prefix}x`, `x${suffix}`, `${prefix}x${suffix}`])) out.push({ ...base, [key]: valueOf(key) }, { ...base, [key]: valueOf(key, 1) });
  }
  out.push({ ...base, extra: 1 }, { ...base, extra: "x" });
  return out;
}
