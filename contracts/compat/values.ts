/** `enum` / `const`, and the residual keywords compared as a whole: `not` and unmodelled ones. */
import { accepts, atomAccepts } from "./accepts.js";
import { newShape } from "./atoms.js";
import { restrict, shapeOf } from "./build.js";
import type { Ctx } from "./context.js";
import { canonical, show } from "./json.js";
import { OPAQUE_KEYWORDS } from "./keywords.js";
import { sameSchema } from "./same.js";
import { samples } from "./sample.js";
import type { Atom, RawChange, Ref, Tri } from "./types.js";
import { and } from "./types.js";

function inValues(atom: Atom, v: unknown): boolean {
  return !atom.values || atom.values.items.some((item) => canonical(item.value) === canonical(v));
}

/** Value-set changes; an equivalent rewrite (both directions hold) is not a change. */
export function valueChanges(o: Atom, n: Atom, finO: unknown[] | undefined, finN: unknown[] | undefined): RawChange[] {
  return rawValueChanges(o, n, finO, finN).filter((c) => !(c.backward === "yes" && c.forward === "yes"));
}

function rawValueChanges(o: Atom, n: Atom, finO: unknown[] | undefined, finN: unknown[] | undefined): RawChange[] {
  const [vo, vn] = [o.values, n.values];
  if (!vo && !vn) return [];
  const holds = (fin: unknown[] | undefined, other: Atom): Tri => (fin ? (fin.every((v) => inValues(other, v)) ? "yes" : "no") : "no");
  if (!vo) {
    return [{ code: vn!.kw === "const" ? "CONST_ADDED" : "ENUM_ADDED", path: vn!.items[0]!.ptr, backward: holds(finO, n), forward: "yes", message: `\`${vn!.kw}\` added: ${vn!.items.map((v) => show(v.value)).join(", ")}` }];
  }
  if (!vn) {
    return [{ code: vo.kw === "const" ? "CONST_REMOVED" : "ENUM_REMOVED", path: vo.items[0]!.ptr, backward: "yes", forward: holds(finN, o), message: `\`${vo.kw}\` removed` }];
  }
  const [keysO, keysN] = [new Set(vo.items.map((v) => canonical(v.value))), new Set(vn.items.map((v) => canonical(v.value)))];
  if (vo.kw === "const" && vn.kw === "const" && vo.items.length === 1 && vn.items.length === 1) {
    if (keysO.has(canonical(vn.items[0]!.value))) return [];
    return [{ code: "CONST_CHANGED", path: vn.items[0]!.ptr, backward: holds(finO, n), forward: holds(finN, o), message: `\`const\` changed from ${show(vo.items[0]!.value)} to ${show(vn.items[0]!.value)}` }];
  }
  const out: RawChange[] = [];
  for (const item of vo.items) {
    if (keysN.has(canonical(item.value))) continue;
    const valid = atomAccepts(o, item.value);
    out.push({ code: "ENUM_VALUE_REMOVED", path: vn.items[0]!.ptr, backward: valid === "no" ? "yes" : valid === "yes" ? "no" : "unknown", forward: "yes", message: `value ${show(item.value)} removed` });
  }
  for (const item of vn.items) {
    if (keysO.has(canonical(item.value))) continue;
    const valid = atomAccepts(n, item.value);
    out.push({ code: "ENUM_VALUE_ADDED", path: item.ptr, backward: "yes", forward: valid === "no" ? "yes" : valid === "yes" ? "no" : "unknown", message: `value ${show(item.value)} added` });
  }
  return out;
}

/**
 * Whether no value of `atom` matches `x`: provably disjoint, or `atom` already excludes
 * a superset of `x` through a `not` of its own; a sampled common value proves "no".
 */
function excludes(ctx: Ctx, atom: Atom, x: Ref, depth: number): Tri {
  const target = restrict(shapeOf(x), new Set([atom.type]));
  if (target.atoms.length === 0) return "yes";
  if (ctx.disjoint(newShape([atom]), target, depth) === "yes") return "yes";
  for (const own of atom.nots) if (ctx.compareShapes(target, shapeOf(own), depth).backward === "yes") return "yes";
  const candidates = [...samples(target), ...samples(newShape([atom]))];
  const common = candidates.some((v) => atomAccepts(atom, v) === "yes" && accepts(target, v) === "yes");
  return common ? "no" : "unknown";
}

export function notChanges(ctx: Ctx, o: Atom, n: Atom, depth: number): RawChange[] {
  const added = n.nots.filter((x) => !o.nots.some((y) => sameSchema(y, x)));
  const removed = o.nots.filter((x) => !n.nots.some((y) => sameSchema(x, y)));
  if (added.length === 0 && removed.length === 0) return [];
  return [
    {
      code: "NOT_CHANGED",
      path: (added[0] ?? removed[0])!.ptr,
      backward: and(...added.map((x) => excludes(ctx, o, x, depth))),
      forward: and(...removed.map((x) => excludes(ctx, n, x, depth))),
      message: "`not` changed",
    },
  ];
}

export function opaqueChanges(o: Atom, n: Atom): RawChange[] {
  const [keysO, keysN] = [new Set(o.opaque.map((x) => x.key)), new Set(n.opaque.map((x) => x.key))];
  const out: RawChange[] = [];
  for (const kw of new Set([...o.opaque, ...n.opaque].map((x) => x.kw))) {
    const added = n.opaque.filter((x) => x.kw === kw && !keysO.has(x.key));
    const removed = o.opaque.filter((x) => x.kw === kw && !keysN.has(x.key));
    if (added.length === 0 && removed.length === 0) continue;
    out.push({
      code: "UNDECIDABLE",
      path: (added[0] ?? removed[0])!.ptr,
      backward: added.length > 0 ? "unknown" : "yes",
      forward: removed.length > 0 ? "unknown" : "yes",
      message: `\`${kw}\` ${added.length > 0 && removed.length > 0 ? "changed" : added.length > 0 ? "added" : "removed"}; the checker does not model it`,
    });
  }
  return out;
}

/** `unevaluatedProperties` and friends depend on every sibling: any other change next to them is undecidable. */
export function interactingKeyword(o: Atom, n: Atom): string | undefined {
  return [...o.opaque, ...n.opaque].find((x) => OPAQUE_KEYWORDS[x.kw]?.interacts)?.kw;
}
