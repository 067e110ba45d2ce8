/**
 * Evaluating one concrete value against a Shape — exact for every modelled keyword,
 * "unknown" where the schema uses something we do not evaluate. Used to check finite
 * sets (enums) against the other schema and to confirm counterexamples.
 */
import { isEmptyRef, itemRefs, propRefs } from "./access.js";
import { scalarAccepts } from "./atoms.js";
import { shapeOf } from "./build.js";
import { sub } from "./doc.js";
import { canonical, jsonType } from "./json.js";
import { isRecord } from "../plain-object.js";
import type { Atom, Opaque, Ref, Shape, Tri } from "./types.js";
import { and, not, or } from "./types.js";

/** Same-instance recursion (`not`, `if`, dependent schemas) deeper than this is "unknown". */
const MAX_LEVEL = 40;

export function accepts(shape: Shape, value: unknown, level = 0): Tri {
  if (level > MAX_LEVEL) return "unknown";
  const type = jsonType(value);
  if (!type) return "no";
  let result: Tri = "no";
  for (const atom of shape.atoms) {
    if (atom.type !== type) continue;
    let r = atomAccepts(atom, value, level);
    if (r !== "no") r = and(r, oneOfExact(atom, value, level));
    result = or(result, r);
    if (result === "yes") break;
  }
  return result;
}

export function refAccepts(ref: Ref, value: unknown, level = 0): Tri {
  return accepts(shapeOf(ref), value, level);
}

/** A value from a `oneOf` branch must fail every other branch of that `oneOf`. */
function oneOfExact(atom: Atom, value: unknown, level: number): Tri {
  const checks: Tri[] = [];
  for (const { group, index } of atom.oneOf) {
    group.branches.forEach((branch, i) => {
      if (i !== index) checks.push(not(refAccepts(branch, value, level + 1)));
    });
  }
  return and(...checks);
}

/** `skip`: keys of unmodelled keywords to leave out (ones both compared schemas share). */
export function atomAccepts(atom: Atom, value: unknown, level = 0, skip: ReadonlySet<string> = new Set()): Tri {
  const own = scalarAccepts(atom, value);
  if (own === "no") return "no";
  const checks: Tri[] = [own];
  if (atom.arr && Array.isArray(value)) checks.push(arrayAccepts(atom, value, level));
  if (atom.obj && isRecord(value)) checks.push(objectAccepts(atom, value, level));
  for (const x of atom.nots) checks.push(not(refAccepts(x, value, level + 1)));
  for (const o of atom.opaque) if (!skip.has(o.key)) checks.push(opaqueAccepts(o, value, level));
  if (atom.inexact) checks.push("unknown");
  return and(...checks);
}

function arrayAccepts(atom: Atom, value: unknown[], level: number): Tri {
  const arr = atom.arr!;
  if (arr.minItems.some((m) => value.length < m.value) || arr.maxItems.some((m) => value.length > m.value)) return "no";
  if (arr.unique && new Set(value.map(canonical)).size !== value.length) return "no";
  const checks: Tri[] = [];
  value.forEach((item, i) => {
    for (const ref of itemRefs(arr, i)) checks.push(refAccepts(ref, item, 0));
  });
  return and(...checks);
}

function objectAccepts(atom: Atom, value: Record<string, unknown>, level: number): Tri {
  const obj = atom.obj!;
  const keys = Object.keys(value);
  if ([...obj.required.keys()].some((k) => !Object.hasOwn(value, k))) return "no";
  if (obj.minProperties.some((m) => keys.length < m.value) || obj.maxProperties.some((m) => keys.length > m.value)) return "no";
  for (const dep of obj.depRequired) if (Object.hasOwn(value, dep.key) && dep.names.some((n) => !Object.hasOwn(value, n))) return "no";
  const checks: Tri[] = [];
  for (const key of keys) {
    const refs = propRefs(obj, key);
    if (refs.some(isEmptyRef)) return "no";
    for (const ref of refs) checks.push(refAccepts(ref, value[key], 0));
  }
  for (const dep of obj.depSchemas) if (Object.hasOwn(value, dep.key)) checks.push(refAccepts(dep.ref, value, level + 1));
  return and(...checks);
}

function opaqueAccepts(o: Opaque, value: unknown, level: number): Tri {
  const at = (kw: string) => sub(o.owner, kw);
  const node = o.owner.node as Record<string, unknown>;
  switch (o.kw) {
    case "contains": {
      if (!Array.isArray(value)) return "yes";
      const results = value.map((item) => refAccepts(at("contains")!, item, 0));
      const yes = results.filter((r) => r === "yes").length;
      const maybe = results.filter((r) => r === "unknown").length;
      const min = typeof node.minContains === "number" ? node.minContains : 1;
      const max = typeof node.maxContains === "number" ? node.maxContains : Infinity;
      if (yes >= min && yes + maybe <= max) return "yes";
      if (yes + maybe < min || yes > max) return "no";
      return "unknown";
    }
    case "propertyNames":
      return isRecord(value) ? and(...Object.keys(value).map((k) => refAccepts(at("propertyNames")!, k, level + 1))) : "yes";
    case "if": {
      const cond = refAccepts(at("if")!, value, level + 1);
      const then = () => (node.then === undefined ? "yes" : refAccepts(at("then")!, value, level + 1));
      const otherwise = () => (node.else === undefined ? "yes" : refAccepts(at("else")!, value, level + 1));
      if (cond === "yes") return then();
      if (cond === "no") return otherwise();
      return and(then(), otherwise()) === "yes" ? "yes" : "unknown";
    }
    default:
      return "unknown";
  }
}
