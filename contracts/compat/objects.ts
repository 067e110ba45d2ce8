/**
 * Object keywords. The value of a key is governed by `properties[key]` plus every
 * matching `patternProperties`, or by `additionalProperties` when neither names it, so
 * a property added to an open model is judged against what the old schema allowed
 * there (anything, for a fully open model), and one added to a closed model against
 * nothing at all.
 */
import { allowsKey, effectiveRequired, isEmptyRef, maxPropertiesOf, minPropertiesOf, patternNames, propNames, propRefs } from "./access.js";
import { newAtom, newShape } from "./atoms.js";
import { conj, shapeOf } from "./build.js";
import type { ChangeCode } from "./codes.js";
import { reconcile, type Ctx } from "./context.js";
import { sameSchema } from "./same.js";
import { child } from "./json.js";
import type { Atom, ObjectFacet, RawChange, Ref, Shape, Sourced, Tri, Verdict } from "./types.js";
import { and, JSON_TYPES } from "./types.js";

function countChange(o: Sourced<number>[], n: Sourced<number>[], prefix: "MIN_PROPERTIES" | "MAX_PROPERTIES", min: boolean) {
  const value = (list: Sourced<number>[]) => (list.length === 0 ? undefined : min ? Math.max(...list.map((x) => x.value)) : Math.min(...list.map((x) => x.value)));
  const [a, b] = [value(o), value(n)];
  if (a === b) return undefined;
  const suffix = a === undefined ? "ADDED" : b === undefined ? "REMOVED" : b > a ? "INCREASED" : "DECREASED";
  return { code: `${prefix}_${suffix}` as ChangeCode, ptr: n[0]?.ptr ?? o[0]!.ptr, message: `\`${min ? "minProperties" : "maxProperties"}\` ${a ?? "none"} → ${b ?? "none"}` };
}

function propPtr(obj: ObjectFacet, key: string): string | undefined {
  return obj.records.find((r) => r.props.has(key))?.props.get(key)!.ptr;
}

function patternRefs(obj: ObjectFacet, pattern: string): Ref[] {
  return obj.records.flatMap((r) => (r.patterns.has(pattern) ? [r.patterns.get(pattern)!] : []));
}

function additionalRefs(obj: ObjectFacet): Ref[] {
  return obj.records.flatMap((r) => (r.additional ? [r.additional] : []));
}

/** Patterns `^abc…` and `^abd…` match disjoint key sets; anything else might overlap. */
function patternsDisjoint(p: string, q: string): boolean {
  const literal = (s: string) => /^\^([A-Za-z0-9_-]*)/.exec(s)?.[1];
  const [a, b] = [literal(p), literal(q)];
  return a !== undefined && b !== undefined && !a.startsWith(b) && !b.startsWith(a);
}

/** How open a content model is: false < a schema < true / absent. */
function openness(refs: Ref[]): number {
  if (refs.length === 0 || refs.every((r) => r.node === true)) return 2;
  return refs.some(isEmptyRef) ? 0 : 1;
}

/** Every value, except objects lacking one of `names`. */
function requiring(names: string[]): Shape {
  return newShape(JSON_TYPES.map((t) => (t === "object" ? newAtom(t, { obj: { required: new Map(names.map((n) => [n, ""])), minProperties: [], maxProperties: [], records: [], depRequired: [], depSchemas: [] } }) : newAtom(t))));
}

/** The atom with `key` also required: the objects a dependency on `key` constrains. */
function withKey(atom: Atom, key: string): Shape {
  const obj = atom.obj!;
  return newShape([newAtom("object", { ...atom, obj: { ...obj, required: new Map([...obj.required, [key, ""]]) } })]);
}

export function objectChanges(ctx: Ctx, o: Atom, n: Atom, depth: number, report: boolean, nodePtr: string): RawChange[] {
  const [oo, no] = [o.obj!, n.obj!];
  const out: RawChange[] = [];
  const [reqO, reqN] = [effectiveRequired(oo), effectiveRequired(no)];
  const compare = (a: Ref[], b: Ref[]): Verdict => ctx.compareShapes(conj(a), conj(b), depth + 1);

  for (const [key, ptr] of no.required) {
    if (oo.required.has(key) || reqO.has(key)) continue;
    out.push({ code: "REQUIRED_PROPERTY_ADDED", path: ptr, backward: "no", forward: "yes", message: `property \`${key}\` is now required` });
  }
  for (const [key, ptr] of oo.required) {
    if (no.required.has(key) || reqN.has(key)) continue;
    out.push({ code: "REQUIRED_PROPERTY_REMOVED", path: ptr, backward: "yes", forward: "no", message: `property \`${key}\` is no longer required` });
  }
  const rawMin = (obj: ObjectFacet) => Math.max(0, ...obj.minProperties.map((m) => m.value));
  const rawMax = (obj: ObjectFacet) => Math.min(Infinity, ...obj.maxProperties.map((m) => m.value));
  const counts = [
    [countChange(oo.minProperties, no.minProperties, "MIN_PROPERTIES", true), minPropertiesOf(oo) >= rawMin(no), minPropertiesOf(no) >= rawMin(oo)],
    [countChange(oo.maxProperties, no.maxProperties, "MAX_PROPERTIES", false), maxPropertiesOf(oo) <= rawMax(no), maxPropertiesOf(no) <= rawMax(oo)],
  ] as const;
  for (const [change, backward, forward] of counts) {
    if (change && !(backward && forward)) out.push({ code: change.code, path: change.ptr, backward: backward ? "yes" : "no", forward: forward ? "yes" : "no", message: change.message });
  }

  for (const key of new Set([...propNames(oo), ...propNames(no)])) {
    const [refsO, refsN] = [propRefs(oo, key), propRefs(no, key)];
    const [ptrO, ptrN] = [propPtr(oo, key), propPtr(no, key)];
    const path = (ptrN ?? ptrO)!;
    if (ptrO && ptrN) {
      if (report && refsO.length === 1 && refsN.length === 1) {
        out.push(...ctx.compareRefs(refsO[0]!, refsN[0]!, depth + 1).changes);
      } else {
        const inner = report ? ctx.compareRefs(oo.records.find((r) => r.props.has(key))!.props.get(key)!, no.records.find((r) => r.props.has(key))!.props.get(key)!, depth + 1).changes : [];
        out.push(...reconcile(inner, compare(refsO, refsN), path, "PATTERN_PROPERTIES_CHANGED", `property \`${key}\` changed together with a matching pattern`));
      }
      continue;
    }
    const v = compare(refsO, refsN);
    if (v.backward === "yes" && v.forward === "yes") continue;
    out.push(
      ptrN
        ? { code: "PROPERTY_ADDED", path, ...v, message: `property \`${key}\` added${refsO.length === 0 ? " where any value was allowed" : ""}` }
        : { code: "PROPERTY_REMOVED", path, ...v, message: `property \`${key}\` removed` },
    );
  }

  out.push(...patternChanges(ctx, oo, no, depth, report));

  const [apO, apN] = [additionalRefs(oo), additionalRefs(no)];
  if (apO.length !== apN.length || !apO.every((r, i) => sameSchema(r, apN[i]!))) {
    const path = apN[0]?.ptr ?? apO[0]?.ptr ?? child(nodePtr, "additionalProperties");
    const schemas = (refs: Ref[]) => refs.length === 1 && typeof refs[0]!.node === "object";
    if (report && schemas(apO) && schemas(apN)) {
      out.push(...ctx.compareRefs(apO[0]!, apN[0]!, depth + 1).changes);
    } else {
      const v = compare(apO, apN);
      const [was, now] = [openness(apO), openness(apN)];
      const narrowed = was > now || (was === now && v.backward !== "yes");
      if (!(v.backward === "yes" && v.forward === "yes")) {
        out.push({ code: narrowed ? "ADDITIONAL_PROPERTIES_NARROWED" : "ADDITIONAL_PROPERTIES_WIDENED", path, ...v, message: `\`additionalProperties\` ${narrowed ? "narrowed" : "widened"}` });
      }
    }
  }
  return out;
}

/** Keys matching a pattern that only one side has are judged against what the other side applies to such keys. */
function patternChanges(ctx: Ctx, oo: ObjectFacet, no: ObjectFacet, depth: number, report: boolean): RawChange[] {
  const out: RawChange[] = [];
  const [patsO, patsN] = [patternNames(oo), patternNames(no)];
  for (const pattern of new Set([...patsO, ...patsN])) {
    const [refsO, refsN] = [patternRefs(oo, pattern), patternRefs(no, pattern)];
    if (refsO.length > 0 && refsN.length > 0) {
      if (report && refsO.length === 1 && refsN.length === 1) out.push(...ctx.compareRefs(refsO[0]!, refsN[0]!, depth + 1).changes);
      else {
        const v = ctx.compareShapes(conj(refsO), conj(refsN), depth + 1);
        if (v.backward !== "yes" || v.forward !== "yes") out.push({ code: "PATTERN_PROPERTIES_CHANGED", path: refsN[0]!.ptr, ...v, message: `schema for keys matching \`${pattern}\` changed` });
      }
      continue;
    }
    const added = refsN.length > 0;
    const [own, otherSide, otherPatterns] = added ? [refsN, oo, patsO] : [refsO, no, patsN];
    // What the other side applies to keys matching `pattern`: its additionalProperties, or an overlapping pattern.
    const candidates: Ref[][] = [additionalRefs(otherSide), ...otherPatterns.filter((p) => !patternsDisjoint(p, pattern)).map((p) => patternRefs(otherSide, p))];
    const verdicts = candidates.map((c) => (added ? ctx.compareShapes(conj(c), conj(own), depth + 1) : ctx.compareShapes(conj(own), conj(c), depth + 1)));
    const soften = (t: Tri): Tri => (t === "no" && candidates.length > 1 ? "unknown" : t);
    const backward = soften(and(...verdicts.map((v) => v.backward)));
    const forward = soften(and(...verdicts.map((v) => v.forward)));
    if (backward === "yes" && forward === "yes") continue;
    out.push({ code: "PATTERN_PROPERTIES_CHANGED", path: own[0]!.ptr, backward, forward, message: `pattern property \`${pattern}\` ${added ? "added" : "removed"}` });
  }
  return out;
}

/** `dependentRequired` / `dependentSchemas` (draft-07 `dependencies`); verdicts come from whole-shape comparisons, so they are never approximate. */
export function dependencyChanges(ctx: Ctx, o: Atom, n: Atom, depth: number): RawChange[] {
  const [oo, no] = [o.obj!, n.obj!];
  const out: RawChange[] = [];
  const namesOf = (obj: ObjectFacet, key: string) => new Set(obj.depRequired.filter((d) => d.key === key).flatMap((d) => d.names));
  const keys = new Set([...oo.depRequired, ...no.depRequired].map((d) => d.key));
  for (const key of keys) {
    const [was, now] = [namesOf(oo, key), namesOf(no, key)];
    const added = [...now].filter((x) => !was.has(x));
    const removed = [...was].filter((x) => !now.has(x));
    if (added.length === 0 && removed.length === 0) continue;
    // Every object of `atom` that has `key` also has `names`: by `required` and the dependencies it already has, or by comparison.
    const holds = (atom: Atom, names: string[], asOld: boolean): Tri => {
      const obj = atom.obj!;
      if (names.length === 0 || !allowsKey(obj, key) || names.every((x) => effectiveRequired(obj, [key]).has(x))) return "yes";
      const v = asOld ? ctx.compareShapes(withKey(atom, key), requiring(names), depth) : ctx.compareShapes(requiring(names), withKey(atom, key), depth);
      return asOld ? v.backward : v.forward;
    };
    const code: ChangeCode = was.size === 0 ? "DEPENDENCY_ADDED" : now.size === 0 ? "DEPENDENCY_REMOVED" : "DEPENDENCY_CHANGED";
    const path = (no.depRequired.find((d) => d.key === key) ?? oo.depRequired.find((d) => d.key === key))!.ptr;
    const list = (names: string[]) => names.map((x) => `\`${x}\``).join(", ");
    const parts = [added.length > 0 ? `now requires ${list(added)}` : "", removed.length > 0 ? `no longer requires ${list(removed)}` : ""].filter(Boolean);
    out.push({ code, path, backward: holds(o, added, true), forward: holds(n, removed, false), message: `\`${key}\` ${parts.join(" and ")}` });
  }

  const impliedBy = (atom: Atom, dep: { key: string; ref: Ref }, other: { key: string; ref: Ref }[], asOld: boolean): Tri => {
    if (!allowsKey(atom.obj!, dep.key)) return "yes";
    for (const mine of other) {
      const v = asOld ? ctx.compareShapes(shapeOf(mine.ref), shapeOf(dep.ref), depth) : ctx.compareShapes(shapeOf(dep.ref), shapeOf(mine.ref), depth);
      if ((asOld ? v.backward : v.forward) === "yes") return "yes";
    }
    const v = asOld ? ctx.compareShapes(withKey(atom, dep.key), shapeOf(dep.ref), depth) : ctx.compareShapes(shapeOf(dep.ref), withKey(atom, dep.key), depth);
    return asOld ? v.backward : v.forward;
  };
  for (const key of new Set([...oo.depSchemas, ...no.depSchemas].map((d) => d.key))) {
    const [olds, news] = [oo.depSchemas.filter((d) => d.key === key), no.depSchemas.filter((d) => d.key === key)];
    const added = news.filter((d) => !olds.some((e) => sameSchema(e.ref, d.ref)));
    const removed = olds.filter((d) => !news.some((e) => sameSchema(d.ref, e.ref)));
    if (added.length === 0 && removed.length === 0) continue;
    const code: ChangeCode = olds.length === 0 ? "DEPENDENCY_ADDED" : news.length === 0 ? "DEPENDENCY_REMOVED" : "DEPENDENCY_CHANGED";
    out.push({
      code,
      path: (added[0] ?? removed[0])!.ptr,
      backward: and(...added.map((d) => impliedBy(o, d, olds, true))),
      forward: and(...removed.map((d) => impliedBy(n, d, news, false))),
      message: `schema required with \`${key}\` ${code === "DEPENDENCY_ADDED" ? "added" : code === "DEPENDENCY_REMOVED" ? "removed" : "changed"}`,
    });
  }
  return out;
}
