import { isEmptyRef, itemRefs, maxItemsOf, minItemsOf, prefixLength } from "./access.js";
import { conj } from "./build.js";
import type { ChangeCode } from "./codes.js";
import { force, type Ctx } from "./context.js";
import { child } from "./json.js";
import { sameSchema } from "./same.js";
import type { ArrayFacet, Atom, RawChange, Ref, Result, Sourced, Tri } from "./types.js";

function countChange(o: Sourced<number>[], n: Sourced<number>[], prefix: "MIN_ITEMS" | "MAX_ITEMS", min: boolean) {
  const value = (list: Sourced<number>[]) => (list.length === 0 ? undefined : min ? Math.max(...list.map((x) => x.value)) : Math.min(...list.map((x) => x.value)));
  const [a, b] = [value(o), value(n)];
  if (a === b) return undefined;
  const suffix = a === undefined ? "ADDED" : b === undefined ? "REMOVED" : b > a ? "INCREASED" : "DECREASED";
  return { code: `${prefix}_${suffix}` as ChangeCode, ptr: n[0]?.ptr ?? o[0]!.ptr, message: `\`${min ? "minItems" : "maxItems"}\` ${a ?? "none"} → ${b ?? "none"}` };
}

/** Compare the schemas at one array position (or the rest), reporting inside them when both are single. */
export function compareItems(ctx: Ctx, o: Ref[], n: Ref[], depth: number, report: boolean): Result {
  const schemas = o.length === 1 && n.length === 1 && typeof o[0]!.node === "object" && typeof n[0]!.node === "object";
  if (report && schemas) return ctx.compareRefs(o[0]!, n[0]!, depth + 1);
  return { changes: [], ...ctx.compareShapes(conj(o), conj(n), depth + 1) };
}

function sameRefs(o: Ref[], n: Ref[]): boolean {
  return o.length === n.length && o.every((r, i) => sameSchema(r, n[i]!));
}

function restPtr(arr: ArrayFacet, fallback: string): string {
  const record = arr.records[0];
  return record?.rest?.ptr ?? child(record?.ptr ?? fallback, "items");
}

export function arrayChanges(ctx: Ctx, o: Atom, n: Atom, depth: number, report: boolean, nodePtr: string): RawChange[] {
  const [ao, an] = [o.arr!, n.arr!];
  const [minO, maxO, minN, maxN] = [minItemsOf(ao), maxItemsOf(ao), minItemsOf(an), maxItemsOf(an)];
  const out: RawChange[] = [];
  const rawMin = (a: ArrayFacet) => Math.max(0, ...a.minItems.map((m) => m.value));
  const rawMax = (a: ArrayFacet) => Math.min(Infinity, ...a.maxItems.map((m) => m.value));
  const counts = [
    [countChange(ao.minItems, an.minItems, "MIN_ITEMS", true), minO >= rawMin(an), minN >= rawMin(ao)],
    [countChange(ao.maxItems, an.maxItems, "MAX_ITEMS", false), maxO <= rawMax(an), maxN <= rawMax(ao)],
  ] as const;
  for (const [change, backward, forward] of counts) {
    if (change && !(backward && forward)) out.push({ code: change.code, path: change.ptr, backward: backward ? "yes" : "no", forward: forward ? "yes" : "no", message: change.message });
  }
  if (an.unique && !ao.unique) out.push({ code: "UNIQUE_ITEMS_ADDED", path: an.unique, backward: maxO <= 1 ? "yes" : "no", forward: "yes", message: "`uniqueItems` added" });
  if (ao.unique && !an.unique) out.push({ code: "UNIQUE_ITEMS_REMOVED", path: ao.unique, backward: "yes", forward: maxN <= 1 ? "yes" : "no", message: "`uniqueItems` removed" });

  const single = ao.records.length <= 1 && an.records.length <= 1;
  const positions = Math.max(prefixLength(ao), prefixLength(an));
  for (let i = 0; i <= positions; i++) {
    const rest = i === positions;
    const [reachO, reachN] = [i < maxO, i < maxN];
    if (!reachO && !reachN) continue;
    const [ro, rn] = [itemRefs(ao, i), itemRefs(an, i)];
    if (sameRefs(ro, rn)) continue;
    const explicitO = !rest && i < (ao.records[0]?.prefix.length ?? 0);
    const explicitN = !rest && i < (an.records[0]?.prefix.length ?? 0);
    const objects = ro.length === 1 && rn.length === 1 && typeof ro[0]!.node === "object" && typeof rn[0]!.node === "object";
    const both = single && objects && (rest || (explicitO && explicitN));
    const r = compareItems(ctx, ro, rn, depth, report && both);
    const backward: Tri = reachO ? r.backward : "yes";
    const forward: Tri = reachN ? r.forward : "yes";
    if (report && both && r.changes.length > 0) {
      if (!reachO) force(r.changes, "backward", "yes");
      if (!reachN) force(r.changes, "forward", "yes");
      out.push(...r.changes);
      continue;
    }
    if (backward === "yes" && forward === "yes") continue;
    const path = rest ? restPtr(an.records.length > 0 ? an : ao, nodePtr) : (an.records[0]?.prefix[i] ?? ao.records[0]?.prefix[i])?.ptr ?? nodePtr;
    const what = rest ? `items after position ${positions - 1}` : `item ${i}`;
    const emptyNow = rn.some(isEmptyRef);
    out.push({ code: "ITEMS_CHANGED", path, backward, forward, message: `schema of ${rest && positions === 0 ? "every item" : what} changed${emptyNow ? " (now not allowed)" : ""}` });
  }
  return out;
}
