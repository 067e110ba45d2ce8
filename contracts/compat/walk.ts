/**
 * The reporting walk over two schema locations: metadata and `$ref` changes, then the
 * semantic comparison. Where a side is a union of same-typed branches the verdict comes
 * from covering each branch, and changes are reported branch by branch (matched by
 * equality, then by type), then made to agree with the verdict.
 */
import { shapeOf } from "./build.js";
import { reconcile, type WalkCtx } from "./context.js";
import { resolveRef, sub } from "./doc.js";
import { canonical, child } from "./json.js";
import { isRecord } from "../plain-object.js";
import { idOf, sameSchema } from "./same.js";
import { DEFINITION_KEYWORDS, isMetadataKeyword } from "./keywords.js";
import { compareSimple, isSimple } from "./simple.js";
import type { RawChange, Ref, Result, Shape, Tri } from "./types.js";

function metadataChanges(o: Ref, n: Ref): RawChange[] {
  if (!isRecord(o.node) || !isRecord(n.node)) return [];
  const [a, b] = [o.node, n.node];
  const out: RawChange[] = [];
  for (const kw of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!isMetadataKeyword(kw) || canonical(a[kw]) === canonical(b[kw])) continue;
    const what = a[kw] === undefined ? "added" : b[kw] === undefined ? "removed" : "changed";
    out.push({ code: "METADATA_CHANGED", path: child(b[kw] === undefined ? o.ptr : n.ptr, kw), backward: "yes", forward: "yes", message: `\`${kw}\` ${what}` });
  }
  return out;
}

/** A `$ref` whose siblings do not constrain anything. */
function isPureRef(ref: Ref): boolean {
  const node = ref.node;
  if (!isRecord(node) || typeof node.$ref !== "string") return false;
  return Object.keys(node).every((k) => k === "$ref" || DEFINITION_KEYWORDS.has(k) || isMetadataKeyword(k));
}

function followPure(ref: Ref): Ref {
  for (let hops = 0; hops < 32 && isPureRef(ref); hops++) {
    const target = resolveRef(ref.doc, (ref.node as { $ref: string }).$ref);
    if (!target) break;
    ref = target;
  }
  return ref;
}

export function compareRefs(checker: WalkCtx, o: Ref, n: Ref, depth: number): Result {
  const key = `${idOf(o.node)}|${idOf(n.node)}`;
  if (checker.entered.has(key)) return { changes: [], ...checker.compareShapes(shapeOf(o), shapeOf(n), depth) };
  checker.entered.add(key);
  if (sameSchema(o, n)) return { changes: [], backward: "yes", forward: "yes" };
  const changes = metadataChanges(o, n);
  const [refO, refN] = [(o.node as { $ref?: unknown })?.$ref, (n.node as { $ref?: unknown })?.$ref];
  if (typeof refO === "string" && typeof refN === "string" && refO !== refN && isPureRef(o) && isPureRef(n)) {
    const v = checker.compareShapes(shapeOf(o), shapeOf(n), depth);
    changes.push({ code: "REF_CHANGED", path: child(n.ptr, "$ref"), ...v, message: `\`$ref\` changed from \`${refO}\` to \`${refN}\`` });
    return { changes, ...v };
  }
  const [ot, nt] = [followPure(o), followPure(n)];
  if ((ot !== o || nt !== n) && sameSchema(ot, nt)) return { changes, backward: "yes", forward: "yes" };
  const [shapeO, shapeN] = [shapeOf(ot), shapeOf(nt)];
  if (isSimple(shapeO) && isSimple(shapeN)) {
    const r = compareSimple(checker, shapeO, shapeN, depth, nt.ptr);
    return { changes: [...changes, ...r.changes], backward: r.backward, forward: r.forward };
  }
  const v = checker.compareShapes(shapeO, shapeN, depth);
  const reported = reconcile(unionChanges(checker, ot, nt, shapeO, shapeN, depth), v, nt.ptr, "COMBINATOR_CHANGED", "the values the union admits changed");
  // A branch moved or regrouped without changing what is accepted is not a change.
  const structural = new Set(["BRANCH_ADDED", "BRANCH_REMOVED", "COMBINATOR_CHANGED"]);
  const kept = reported.filter((c) => !(structural.has(c.code) && c.backward === "yes" && c.forward === "yes"));
  return { changes: [...changes, ...kept], ...v };
}

interface Branches {
  kw: "anyOf" | "oneOf";
  refs: Ref[];
}

function branchesOf(ref: Ref): Branches | undefined {
  const node = ref.node;
  if (!isRecord(node)) return undefined;
  const any = Array.isArray(node.anyOf);
  const one = Array.isArray(node.oneOf);
  if (any === one) return undefined;
  const kw = any ? "anyOf" : "oneOf";
  return { kw, refs: (node[kw] as unknown[]).map((_, i) => sub(ref, kw, i)!) };
}

const strippedNodes = new WeakMap<object, object>();

/** The location without its union, to compare what the branches share. */
function base(ref: Ref): Ref | undefined {
  const node = ref.node as Record<string, unknown>;
  const rest = Object.keys(node).filter((k) => k !== "anyOf" && k !== "oneOf" && !isMetadataKeyword(k) && !DEFINITION_KEYWORDS.has(k));
  if (rest.length === 0) return undefined;
  let stripped = strippedNodes.get(node);
  if (!stripped) {
    stripped = Object.fromEntries(Object.entries(node).filter(([k]) => k !== "anyOf" && k !== "oneOf"));
    strippedNodes.set(node, stripped);
  }
  return { doc: ref.doc, node: stripped, ptr: ref.ptr };
}

function unionChanges(checker: WalkCtx, o: Ref, n: Ref, shapeO: Shape, shapeN: Shape, depth: number): RawChange[] {
  const [bo, bn] = [branchesOf(o), branchesOf(n)];
  if (!bo && !bn) return [];
  const out: RawChange[] = [];
  if (bo && bn) {
    if (bo.kw !== bn.kw) {
      const v = checker.compareShapes(shapeO, shapeN, depth);
      out.push({ code: "COMBINATOR_CHANGED", path: child(n.ptr, bn.kw), ...v, message: `\`${bo.kw}\` became \`${bn.kw}\`` });
    }
    const [baseO, baseN] = [base(o), base(n)];
    if (baseO || baseN) out.push(...compareRefs(checker, baseO ?? { ...o, node: true }, baseN ?? { ...n, node: true }, depth).changes);
  }
  const single = (ref: Ref, like: Branches): Branches => ({ kw: like.kw, refs: [ref] });
  const [lo, ln] = [bo ?? single(o, bn!), bn ?? single(n, bo!)];
  const pairs = pairBranches(lo.refs, ln.refs);
  const [pairedO, pairedN] = [new Set(pairs.map(([i]) => i)), new Set(pairs.map(([, j]) => j))];
  for (const [i, j] of pairs) out.push(...compareRefs(checker, lo.refs[i]!, ln.refs[j]!, depth).changes);
  lo.refs.forEach((ref, i) => {
    if (pairedO.has(i) || !bo) return;
    const s = shapeOf(ref);
    const backward = checker.compareShapes(s, shapeN, depth).backward;
    const forward: Tri = lo.kw === "oneOf" ? checker.disjoint(s, shapeN, depth) : "yes";
    out.push({ code: "BRANCH_REMOVED", path: ref.ptr, backward, forward, message: `branch \`${ref.ptr}\` removed` });
  });
  ln.refs.forEach((ref, j) => {
    if (pairedN.has(j) || !bn) return;
    const s = shapeOf(ref);
    const forward = checker.compareShapes(shapeO, s, depth).forward;
    const backward: Tri = ln.kw === "oneOf" ? checker.disjoint(shapeO, s, depth) : "yes";
    out.push({ code: "BRANCH_ADDED", path: ref.ptr, backward, forward, message: `branch \`${ref.ptr}\` added` });
  });
  return out;
}

function signature(ref: Ref): string {
  return shapeOf(ref)
    .atoms.map((a) => (a.type === "number" && a.num!.integer ? "integer" : a.type))
    .sort()
    .join();
}

/** Match branches: equal ones first, then ones admitting the same types, in order. */
function pairBranches(olds: Ref[], news: Ref[]): [number, number][] {
  const pairs: [number, number][] = [];
  const [usedO, usedN] = [new Set<number>(), new Set<number>()];
  const match = (test: (a: Ref, b: Ref) => boolean) => {
    olds.forEach((a, i) => {
      if (usedO.has(i)) return;
      const j = news.findIndex((b, k) => !usedN.has(k) && test(a, b));
      if (j >= 0) (pairs.push([i, j]), usedO.add(i), usedN.add(j));
    });
  };
  match((a, b) => sameSchema(a, b));
  match((a, b) => signature(a) === signature(b));
  return pairs;
}
