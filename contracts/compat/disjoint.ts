/** Whether two shapes share no value: needed for `oneOf` (a value matching two branches fails). */
import { allowsKey, effectiveRequired, itemRefs, maxItemsOf, maxPropertiesOf, minItemsOf, minPropertiesOf, propRefs } from "./access.js";
import { accepts, atomAccepts } from "./accepts.js";
import { conj } from "./build.js";
import { finiteOf, isEmptyAtom } from "./finite.js";
import { effectiveLower, effectiveUpper } from "./numbers.js";
import { samples } from "./sample.js";
import { maxLengthOf, minLengthOf } from "./strings.js";
import type { Atom, Shape, Tri } from "./types.js";
import { and } from "./types.js";

const MAX_DEPTH = 8;

export function disjointShapes(a: Shape, b: Shape, depth: number): Tri {
  let result: Tri = "yes";
  for (const x of a.atoms) for (const y of b.atoms) if (x.type === y.type) result = and(result, disjointAtoms(x, y, depth));
  if (result !== "unknown") return result;
  const common = [...samples(a), ...samples(b)].some((v) => accepts(a, v) === "yes" && accepts(b, v) === "yes");
  return common ? "no" : "unknown";
}

function finiteDisjoint(fin: unknown[], own: Atom, other: Atom): Tri {
  return and(
    ...fin.map((v): Tri => {
      const theirs = atomAccepts(other, v);
      if (theirs === "no") return "yes";
      return atomAccepts(own, v) === "yes" && theirs === "yes" ? "no" : "unknown";
    }),
  );
}

function disjointAtoms(a: Atom, b: Atom, depth: number): Tri {
  if (isEmptyAtom(a) || isEmptyAtom(b)) return "yes";
  const [finA, finB] = [finiteOf(a), finiteOf(b)];
  if (finA) return finiteDisjoint(finA, a, b);
  if (finB) return finiteDisjoint(finB, b, a);
  if (depth > MAX_DEPTH) return "unknown";
  if (a.num && b.num) {
    const below = (x: Atom, y: Atom) => {
      const [hi, lo] = [effectiveUpper(x.num!), effectiveLower(y.num!)];
      return hi !== undefined && lo !== undefined && (hi.value < lo.value || (hi.value === lo.value && (hi.exclusive || lo.exclusive)));
    };
    if (below(a, b) || below(b, a)) return "yes";
  }
  if (a.str && b.str && (maxLengthOf(a.str) < minLengthOf(b.str) || maxLengthOf(b.str) < minLengthOf(a.str))) return "yes";
  if (a.arr && b.arr) {
    if (maxItemsOf(a.arr) < minItemsOf(b.arr) || maxItemsOf(b.arr) < minItemsOf(a.arr)) return "yes";
    const shared = Math.min(minItemsOf(a.arr), minItemsOf(b.arr), 8);
    for (let i = 0; i < shared; i++) if (disjointShapes(conj(itemRefs(a.arr, i)), conj(itemRefs(b.arr, i)), depth + 1) === "yes") return "yes";
  }
  if (a.obj && b.obj) {
    if (maxPropertiesOf(a.obj) < minPropertiesOf(b.obj) || maxPropertiesOf(b.obj) < minPropertiesOf(a.obj)) return "yes";
    const [reqA, reqB] = [effectiveRequired(a.obj), effectiveRequired(b.obj)];
    for (const key of reqA) {
      if (!allowsKey(b.obj, key)) return "yes";
      if (reqB.has(key) && disjointShapes(conj(propRefs(a.obj, key)), conj(propRefs(b.obj, key)), depth + 1) === "yes") return "yes";
    }
    for (const key of reqB) if (!allowsKey(a.obj, key)) return "yes";
  }
  return "unknown";
}
