/**
 * Comparing two shapes with at most one atom per type (no same-type union): pair atoms
 * by type, report keyword changes inside each pair, and type or value changes for the
 * atoms only one side has.
 */
import { accepts, atomAccepts } from "./accepts.js";
import type { WalkCtx } from "./context.js";
import { finiteOf, isEmptyAtom, isExact } from "./finite.js";
import { child, show } from "./json.js";
import type { Atom, JsonType, RawChange, Result, Shape, Tri } from "./types.js";
import { and, JSON_TYPES } from "./types.js";
import { witness } from "./witness.js";

export function isSimple(shape: Shape): boolean {
  const types = new Set(shape.atoms.map((a) => a.type));
  return types.size === shape.atoms.length && shape.atoms.every((a) => a.oneOf.length === 0);
}

function typeName(a: Atom): string {
  return a.type === "number" && a.num!.integer ? "integer" : a.type;
}

export function compareSimple(checker: WalkCtx, o: Shape, n: Shape, depth: number, ptr: string): Result {
  const byType = (s: Shape) => new Map<JsonType, Atom>(s.atoms.map((a) => [a.type, a]));
  const [mo, mn] = [byType(o), byType(n)];
  const changes: RawChange[] = [];
  const onlyOld: Atom[] = [];
  const onlyNew: Atom[] = [];
  for (const type of JSON_TYPES) {
    const [a, b] = [mo.get(type), mn.get(type)];
    if (a && b) changes.push(...checker.atomChanges(a, b, depth, true, ptr).changes);
    else if (a && !isEmptyAtom(a)) onlyOld.push(a);
    else if (b && !isEmptyAtom(b)) onlyNew.push(b);
  }
  changes.push(...unpairedChanges(o, n, onlyOld, onlyNew, ptr));
  let backward = and(...changes.map((c) => c.backward));
  let forward = and(...changes.map((c) => c.forward));
  if (backward === "unknown" && witness(o, n) !== undefined) backward = "no";
  if (forward === "unknown" && witness(n, o) !== undefined) forward = "no";
  return { changes, backward, forward };
}

/** Atoms of a type only one side admits: value changes for finite ones, a type change for the rest. */
function unpairedChanges(o: Shape, n: Shape, onlyOld: Atom[], onlyNew: Atom[], ptr: string): RawChange[] {
  const out: RawChange[] = [];
  const [valuesOld, valuesNew] = [onlyOld.filter((a) => a.values), onlyNew.filter((a) => a.values)];
  const [typesOld, typesNew] = [onlyOld.filter((a) => !a.values), onlyNew.filter((a) => !a.values)];
  const single = (list: Atom[]) => list.length === 1 && list[0]!.values!.kw === "const" && list[0]!.values!.items.length === 1;
  if (single(valuesOld) && single(valuesNew) && typesOld.length === 0 && typesNew.length === 0) {
    const [was, now] = [valuesOld[0]!.values!.items[0]!, valuesNew[0]!.values!.items[0]!];
    out.push({ code: "CONST_CHANGED", path: now.ptr, backward: accepts(n, was.value), forward: accepts(o, now.value), message: `\`const\` changed from ${show(was.value)} to ${show(now.value)}` });
  } else {
    for (const atom of valuesOld) {
      for (const v of finiteOf(atom) ?? []) {
        out.push({ code: "ENUM_VALUE_REMOVED", path: atom.values!.items[0]!.ptr, backward: atomAccepts(atom, v) === "yes" ? "no" : "unknown", forward: "yes", message: `value ${show(v)} removed` });
      }
    }
    for (const atom of valuesNew) {
      for (const v of finiteOf(atom) ?? []) {
        out.push({ code: "ENUM_VALUE_ADDED", path: atom.values!.items[0]!.ptr, backward: "yes", forward: atomAccepts(atom, v) === "yes" ? "no" : "unknown", message: `value ${show(v)} added` });
      }
    }
  }
  if (typesOld.length > 0 || typesNew.length > 0) {
    const lost: Tri = and(...typesOld.map((a): Tri => (isExact(a) ? "no" : "unknown")));
    const gained: Tri = and(...typesNew.map((a): Tri => (isExact(a) ? "no" : "unknown")));
    const code = typesOld.length > 0 && typesNew.length > 0 ? "TYPE_CHANGED" : typesOld.length > 0 ? "TYPE_NARROWED" : "TYPE_WIDENED";
    const path = typesNew[0]?.typePtr ?? typesOld[0]?.typePtr ?? n.atoms[0]?.typePtr ?? o.atoms[0]?.typePtr ?? child(ptr, "type");
    const names = (list: Atom[]) => list.map((a) => `\`${typeName(a)}\``).join(", ");
    const parts = [typesOld.length > 0 ? `no longer allows ${names(typesOld)}` : "", typesNew.length > 0 ? `now allows ${names(typesNew)}` : ""].filter(Boolean);
    out.push({ code, path, backward: lost, forward: gained, message: parts.join("; ") });
  }
  return out;
}

