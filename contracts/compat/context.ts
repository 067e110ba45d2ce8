import type { ChangeCode } from "./codes.js";
import type { Atom, RawChange, Ref, Result, Shape, Tri, Verdict } from "./types.js";

/** What keyword modules need from the checker, so they do not import it (no cycles). */
export interface Ctx {
  /** Semantic comparison: is every value of `o` in `n` (backward), and the reverse (forward)? */
  compareShapes(o: Shape, n: Shape, depth: number): Verdict;
  /** Comparison of two schema locations that also reports what changed. */
  compareRefs(o: Ref, n: Ref, depth: number): Result;
  disjoint(a: Shape, b: Shape, depth: number): Tri;
}

/** What the reporting walk (walk.ts, simple.ts) needs from the checker besides `Ctx`. */
export interface WalkCtx extends Ctx {
  /** Pairs of nodes the reporting walk has entered (recursive schemas end there). */
  readonly entered: Set<string>;
  /** Compare two atoms of one type, keyword family by keyword family. */
  atomChanges(o: Atom, n: Atom, depth: number, report: boolean, nodePtr: string): Result;
}

/**
 * Make reported changes agree with a verdict decided another way (unions, patterns,
 * finite sets): a direction that holds clears every change in it; a direction that
 * fails with no change to blame gets one.
 */
export function reconcile(changes: RawChange[], verdict: Partial<Verdict>, path: string, fallback: ChangeCode, message: string): RawChange[] {
  const out = [...changes];
  const missing: Partial<Record<"backward" | "forward", Tri>> = {};
  for (const dir of ["backward", "forward"] as const) {
    const value = verdict[dir];
    if (value === undefined) continue;
    if (value === "yes") for (const c of out) c[dir] = "yes";
    else if (out.every((c) => c[dir] === "yes")) missing[dir] = value;
  }
  if (missing.backward || missing.forward) {
    const unknown = missing.backward === "unknown" || missing.forward === "unknown";
    out.push({ code: unknown ? "UNDECIDABLE" : fallback, path, backward: missing.backward ?? "yes", forward: missing.forward ?? "yes", message });
  }
  return out;
}

/** Set one direction of every change (a position the other schema never reaches). */
export function force(changes: RawChange[], dir: "backward" | "forward", value: Tri): RawChange[] {
  for (const c of changes) c[dir] = value;
  return changes;
}
