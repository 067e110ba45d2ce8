import type { ChangeCode } from "./codes.js";
import { allPass, checkFormat, formatChanges, formatImplies } from "./formats.js";
import type { Atom, Bound, NumberFacet, RawChange, Tri } from "./types.js";
import { and } from "./types.js";

interface Limit {
  value: number;
  exclusive: boolean;
}

export function emptyNumberFacet(): NumberFacet {
  return { integer: false, lower: [], upper: [], multipleOf: [], formats: [] };
}

/** `x` passes `multipleOf: m` exactly as AJV checks it (floating division, then parseInt). */
export function isMultipleOf(x: number, m: number): boolean {
  const res = x / m;
  return res === parseInt(String(res), 10);
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * A step every admitted value is a multiple of: the lcm of integer `multipleOf`s (1 for
 * `integer`), or a single non-integer `multipleOf`. Undefined for a continuum.
 */
export function gridOf(f: NumberFacet): number | undefined {
  // Every integer is (exactly, in floating point) a multiple of 1/2, 1/4, …: such steps add nothing to `integer`.
  const steps = f.multipleOf.map((m) => m.value).filter((m) => !(f.integer && m < 1 && Number.isInteger(Math.log2(1 / m))));
  if (steps.length === 1 && !f.integer && !Number.isInteger(steps[0])) return steps[0];
  if (!steps.every((m) => Number.isInteger(m) && m > 0)) return undefined;
  let step = f.integer || steps.length > 0 ? 1 : undefined;
  for (const m of steps) {
    step = (step! * m) / gcd(step!, m);
    if (!Number.isSafeInteger(step)) return undefined;
  }
  return step;
}

function tightest(bounds: Bound[], lower: boolean): Limit | undefined {
  let best: Limit | undefined;
  for (const b of bounds) {
    const better = !best || (lower ? b.value > best.value : b.value < best.value) || (b.value === best.value && b.exclusive);
    if (better) best = { value: b.value, exclusive: b.exclusive };
  }
  return best;
}

/** The lowest admitted value: inclusive and on the grid when there is an integer grid. */
export function effectiveLower(f: NumberFacet): Limit | undefined {
  const raw = tightest(f.lower, true);
  const step = gridOf(f);
  if (!raw || step === undefined || !Number.isInteger(step)) return raw;
  let k = Math.ceil(raw.value / step);
  if (raw.exclusive && k * step === raw.value) k += 1;
  return { value: k * step, exclusive: false };
}

export function effectiveUpper(f: NumberFacet): Limit | undefined {
  const raw = tightest(f.upper, false);
  const step = gridOf(f);
  if (!raw || step === undefined || !Number.isInteger(step)) return raw;
  let k = Math.floor(raw.value / step);
  if (raw.exclusive && k * step === raw.value) k -= 1;
  return { value: k * step, exclusive: false };
}

export function isEmptyNumber(f: NumberFacet): boolean {
  const lo = effectiveLower(f);
  const hi = effectiveUpper(f);
  if (!lo || !hi) return false;
  return lo.value > hi.value || (lo.value === hi.value && (lo.exclusive || hi.exclusive));
}

/** Every admitted value, when the grid makes the set small. */
export function enumerateNumbers(f: NumberFacet, limit = 64): number[] | undefined {
  const step = gridOf(f);
  const lo = effectiveLower(f);
  const hi = effectiveUpper(f);
  if (step === undefined || !Number.isInteger(step) || !lo || !hi) return undefined;
  if (isEmptyNumber(f)) return [];
  if ((hi.value - lo.value) / step + 1 > limit) return undefined;
  const out: number[] = [];
  for (let x = lo.value; x <= hi.value; x += step) if (numberAccepts(f, x) === "yes") out.push(x);
  return out;
}

function passes(x: number, limit: Limit, lower: boolean): boolean {
  if (lower) return limit.exclusive ? x > limit.value : x >= limit.value;
  return limit.exclusive ? x < limit.value : x <= limit.value;
}

export function numberAccepts(f: NumberFacet, x: number): Tri {
  if (f.integer && !Number.isInteger(x)) return "no";
  if (!f.lower.every((b) => passes(x, b, true)) || !f.upper.every((b) => passes(x, b, false))) return "no";
  if (!f.multipleOf.every((m) => isMultipleOf(x, m.value))) return "no";
  return and(...f.formats.map((fmt) => checkFormat(fmt.value, x)));
}

/** Every value of `src` satisfies every bound in `bounds` (all lower or all upper). */
function boundsHold(src: NumberFacet, finite: number[] | undefined, bounds: Bound[], lower: boolean): Tri {
  if (bounds.length === 0) return "yes";
  if (finite) return finite.every((x) => bounds.every((b) => passes(x, b, lower))) ? "yes" : "no";
  const own = lower ? effectiveLower(src) : effectiveUpper(src);
  if (!own) return "no";
  const inside = (b: Bound) => (lower ? own.value > b.value : own.value < b.value) || (own.value === b.value && (!b.exclusive || own.exclusive));
  return bounds.every(inside) ? "yes" : "no";
}

function multiplesHold(src: NumberFacet, finite: number[] | undefined, steps: number[]): Tri {
  if (steps.length === 0) return "yes";
  if (finite) return finite.every((x) => steps.every((m) => isMultipleOf(x, m))) ? "yes" : "no";
  const grid = gridOf(src);
  const own = new Set(src.multipleOf.map((m) => m.value));
  const held = (m: number) =>
    own.has(m) ||
    (grid !== undefined && Number.isInteger(grid) && Number.isInteger(m) && grid % m === 0) ||
    // integers divide exactly by 1/2^k, so every integer is a multiple of 0.5, 0.25, …
    (grid !== undefined && Number.isInteger(grid) && Number.isInteger(Math.log2(1 / m)) && m <= 1);
  return steps.every(held) ? "yes" : "no";
}

function integersHold(src: NumberFacet, finite: number[] | undefined): Tri {
  if (finite) return finite.every(Number.isInteger) ? "yes" : "no";
  const grid = gridOf(src);
  return grid !== undefined && Number.isInteger(grid) ? "yes" : "no";
}

function boundCodes(o: Bound[], n: Bound[], kw: Bound["kw"], prefix: string): { code: ChangeCode; ptr: string; message: string }[] {
  const pick = (list: Bound[]) => list.filter((b) => b.kw === kw);
  const [was, now] = [pick(o), pick(n)];
  const lower = kw === "minimum" || kw === "exclusiveMinimum";
  const value = (list: Bound[]) => (list.length === 0 ? undefined : lower ? Math.max(...list.map((b) => b.value)) : Math.min(...list.map((b) => b.value)));
  const [a, b] = [value(was), value(now)];
  if (a === b) return [];
  const ptr = now[0]?.ptr ?? was[0]!.ptr;
  const suffix = a === undefined ? "ADDED" : b === undefined ? "REMOVED" : b > a ? "INCREASED" : "DECREASED";
  const message = `\`${kw}\` ${a ?? "none"} → ${b ?? "none"}`;
  return [{ code: `${prefix}_${suffix}` as ChangeCode, ptr, message }];
}

/** Changes between the number facets of two atoms; flags are per dimension. */
export function numberChanges(o: Atom, n: Atom, finO: number[] | undefined, finN: number[] | undefined): RawChange[] {
  const [fo, fn] = [o.num!, n.num!];
  const out: RawChange[] = [];
  const push = (entries: { code: ChangeCode; ptr: string; message: string }[], backward: Tri, forward: Tri) => {
    if (backward === "yes" && forward === "yes") return; // an equivalent rewrite, e.g. integer `minimum: 1` vs `exclusiveMinimum: 0`
    for (const e of entries) out.push({ code: e.code, path: e.ptr, backward, forward, message: e.message });
  };

  if (fo.integer !== fn.integer) {
    const ptr = (fn.integer ? n.typePtr : o.typePtr) ?? n.typePtr ?? o.typePtr ?? "#";
    if (fn.integer) push([{ code: "TYPE_NARROWED", ptr, message: "`number` narrowed to `integer`" }], integersHold(fo, finO), "yes");
    else push([{ code: "TYPE_WIDENED", ptr, message: "`integer` widened to `number`" }], "yes", integersHold(fn, finN));
  }
  for (const [lower, kws] of [
    [true, [["minimum", "MINIMUM"], ["exclusiveMinimum", "EXCLUSIVE_MINIMUM"]]],
    [false, [["maximum", "MAXIMUM"], ["exclusiveMaximum", "EXCLUSIVE_MAXIMUM"]]],
  ] as const) {
    const side = lower ? "lower" : "upper";
    const codes = kws.flatMap(([kw, prefix]) => boundCodes(fo[side], fn[side], kw, prefix));
    push(codes, boundsHold(fo, finO, fn[side], lower), boundsHold(fn, finN, fo[side], lower));
  }
  const [mo, mn] = [fo.multipleOf.map((m) => m.value), fn.multipleOf.map((m) => m.value)];
  if (mo.join() !== mn.join()) {
    const code: ChangeCode = mo.length === 0 ? "MULTIPLE_OF_ADDED" : mn.length === 0 ? "MULTIPLE_OF_REMOVED" : "MULTIPLE_OF_CHANGED";
    const ptr = fn.multipleOf[0]?.ptr ?? fo.multipleOf[0]!.ptr;
    push([{ code, ptr, message: `\`multipleOf\` ${mo.join(", ") || "none"} → ${mn.join(", ") || "none"}` }], multiplesHold(fo, finO, mn), multiplesHold(fn, finN, mo));
  }
  out.push(
    ...formatChanges(fo.formats, fn.formats, (side, format) => {
      const [facet, finite] = side === "old" ? [fo, finO] : [fn, finN];
      if (finite) return allPass(finite, format);
      if (facet.formats.some((f) => formatImplies(f.value, format)) || format === "float" || format === "double") return "yes";
      if (format === "int64" && integersHold(facet, undefined) === "yes") return "yes";
      return "no";
    }),
  );
  return out;
}
