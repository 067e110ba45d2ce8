import type { ChangeCode } from "./codes.js";
import { allPass, checkFormat, formatChanges, formatImplies, isKnownFormat } from "./formats.js";
import type { Atom, RawChange, Sourced, StringFacet, Tri } from "./types.js";
import { and } from "./types.js";

export function emptyStringFacet(): StringFacet {
  return { minLength: [], maxLength: [], patterns: [], formats: [] };
}

/** String length as JSON Schema (and AJV) counts it: in code points. */
export function lengthOf(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const regexCache = new Map<string, RegExp | null>();

/** The pattern compiled as AJV compiles it (`u` flag); null when it is not a valid regex. */
export function regexOf(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "u");
    } catch {
      re = null;
    }
    regexCache.set(pattern, re);
  }
  return re;
}

/** Patterns every string matches (an unanchored match of the empty string). */
const TRIVIAL_PATTERNS = new Set(["", ".*", "^.*", ".*$", "^", "$", "[\\s\\S]*", "^[\\s\\S]*$", "^[\\s\\S]*", "[^]*", "^[^]*$"]);

export function minLengthOf(f: StringFacet): number {
  return Math.max(0, ...f.minLength.map((m) => m.value));
}

export function maxLengthOf(f: StringFacet): number {
  return Math.min(Infinity, ...f.maxLength.map((m) => m.value));
}

export function isEmptyString(f: StringFacet): boolean {
  return minLengthOf(f) > maxLengthOf(f);
}

const LITERAL = /^(?:[A-Za-z0-9_ ,:;@#%&=<>'"-]|\\[^A-Za-z0-9])+$/;

/** `^(a|b|c)$`, `^(?:a|b)$` and `^abc$` spell a finite set; anything else is undefined. */
export function literalAlternatives(pattern: string): string[] | undefined {
  if (!pattern.startsWith("^") || !pattern.endsWith("$") || pattern.endsWith("\\$")) return undefined;
  let inner = pattern.slice(1, -1);
  const grouped = /^\((\?:)?(.*)\)$/.exec(inner);
  if (grouped) inner = grouped[2]!;
  else if (inner.includes("|")) return undefined;
  const parts = inner.split("|");
  if (!parts.every((p) => p === "" || LITERAL.test(p))) return undefined;
  return parts.map((p) => p.replace(/\\(.)/g, "$1"));
}

/** Every string the facet admits, when that set is small and known. */
export function enumerateStrings(f: StringFacet): string[] | undefined {
  if (maxLengthOf(f) === 0) return stringAccepts(f, "") === "yes" ? [""] : [];
  for (const p of f.patterns) {
    const words = literalAlternatives(p.value);
    if (words) return words.filter((w) => stringAccepts(f, w) === "yes");
  }
  return undefined;
}

export function stringAccepts(f: StringFacet, s: string): Tri {
  const len = lengthOf(s);
  if (len < minLengthOf(f) || len > maxLengthOf(f)) return "no";
  const checks: Tri[] = f.patterns.map((p) => {
    const re = regexOf(p.value);
    return re === null ? "unknown" : re.test(s) ? "yes" : "no";
  });
  return and(...checks, ...f.formats.map((fmt) => checkFormat(fmt.value, s)));
}

/** A string of an admitted length that `pattern` rejects, for a facet with no pattern or format. */
function missesPattern(f: StringFacet, pattern: string): boolean {
  const re = regexOf(pattern);
  if (!re) return false;
  const min = minLengthOf(f);
  const max = Math.min(maxLengthOf(f), min + 8);
  for (const len of new Set([min, min + 1, min + 2, max])) {
    if (len > max) continue;
    for (const ch of ["a", "0", " ", "-", "A", "é", "\n"]) if (!re.test(ch.repeat(len))) return true;
  }
  return false;
}

function patternHolds(src: StringFacet, finite: string[] | undefined, pattern: string): Tri {
  if (finite) return finite.every((s) => regexOf(pattern)?.test(s) ?? false) ? "yes" : "no";
  if (TRIVIAL_PATTERNS.has(pattern)) return "yes";
  if (src.patterns.length === 0 && src.formats.length === 0) return missesPattern(src, pattern) ? "no" : "unknown";
  return "unknown";
}

function lengthChange(o: Sourced<number>[], n: Sourced<number>[], prefix: "MIN_LENGTH" | "MAX_LENGTH", min: boolean) {
  const value = (list: Sourced<number>[]) => (list.length === 0 ? undefined : min ? Math.max(...list.map((x) => x.value)) : Math.min(...list.map((x) => x.value)));
  const [a, b] = [value(o), value(n)];
  if (a === b) return undefined;
  const suffix = a === undefined ? "ADDED" : b === undefined ? "REMOVED" : b > a ? "INCREASED" : "DECREASED";
  const kw = min ? "minLength" : "maxLength";
  return { code: `${prefix}_${suffix}` as ChangeCode, ptr: n[0]?.ptr ?? o[0]!.ptr, message: `\`${kw}\` ${a ?? "none"} → ${b ?? "none"}` };
}

/** Changes between the string facets of two atoms. */
export function stringChanges(o: Atom, n: Atom, finO: string[] | undefined, finN: string[] | undefined): RawChange[] {
  const [fo, fn] = [o.str!, n.str!];
  const out: RawChange[] = [];
  const minHolds = (src: StringFacet, fin: string[] | undefined, bound: number) =>
    fin ? (fin.every((s) => lengthOf(s) >= bound) ? "yes" : "no") : minLengthOf(src) >= bound ? "yes" : "no";
  const maxHolds = (src: StringFacet, fin: string[] | undefined, bound: number) =>
    fin ? (fin.every((s) => lengthOf(s) <= bound) ? "yes" : "no") : maxLengthOf(src) <= bound ? "yes" : "no";
  const lengthDims = [
    [lengthChange(fo.minLength, fn.minLength, "MIN_LENGTH", true), minHolds(fo, finO, minLengthOf(fn)), minHolds(fn, finN, minLengthOf(fo))],
    [lengthChange(fo.maxLength, fn.maxLength, "MAX_LENGTH", false), maxHolds(fo, finO, maxLengthOf(fn)), maxHolds(fn, finN, maxLengthOf(fo))],
  ] as const;
  for (const [change, backward, forward] of lengthDims) {
    if (change && !(backward === "yes" && forward === "yes")) out.push({ code: change.code, path: change.ptr, backward, forward, message: change.message });
  }

  const oldPatterns = new Set(fo.patterns.map((p) => p.value));
  const newPatterns = new Set(fn.patterns.map((p) => p.value));
  const added = fn.patterns.filter((p) => !oldPatterns.has(p.value));
  const removed = fo.patterns.filter((p) => !newPatterns.has(p.value));
  if (added.length === 1 && removed.length === 1) {
    const [a, r] = [added[0]!, removed[0]!];
    out.push({
      code: "PATTERN_CHANGED",
      path: a.ptr,
      backward: patternHolds(fo, finO, a.value),
      forward: patternHolds(fn, finN, r.value),
      message: `pattern changed from \`${r.value}\` to \`${a.value}\``,
    });
  } else {
    for (const p of added) out.push({ code: "PATTERN_ADDED", path: p.ptr, backward: patternHolds(fo, finO, p.value), forward: "yes", message: `pattern \`${p.value}\` added` });
    for (const p of removed) out.push({ code: "PATTERN_REMOVED", path: p.ptr, backward: "yes", forward: patternHolds(fn, finN, p.value), message: `pattern \`${p.value}\` removed` });
  }

  out.push(
    ...formatChanges(fo.formats, fn.formats, (side, format) => {
      const [facet, finite] = side === "old" ? [fo, finO] : [fn, finN];
      if (finite) return allPass(finite, format);
      if (facet.formats.some((f) => formatImplies(f.value, format))) return "yes";
      if (!isKnownFormat(format) || facet.patterns.length > 0) return "unknown";
      return "no";
    }),
  );
  return out;
}
