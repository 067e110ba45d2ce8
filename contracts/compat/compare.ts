/**
 * The checker: semantic inclusion between shapes (backward: old ⊆ new; forward: new ⊆
 * old), atom by atom and keyword family by keyword family. Every "yes" is a proof;
 * "no" is a counterexample in principle (and, where reasoning was approximate, one the
 * sampler actually found); everything else is "unknown" and counts as incompatible.
 */
import { accepts, atomAccepts } from "./accepts.js";
import { arrayChanges } from "./arrays.js";
import { newShape } from "./atoms.js";
import { shapeOf } from "./build.js";
import { force, reconcile, type WalkCtx } from "./context.js";
import { disjointShapes } from "./disjoint.js";
import { finiteOf, isEmptyAtom, isExact } from "./finite.js";
import { numberChanges } from "./numbers.js";
import { dependencyChanges, objectChanges } from "./objects.js";
import { stringChanges } from "./strings.js";
import type { Atom, RawChange, Ref, Result, Shape, Tri, Verdict } from "./types.js";
import { and, or } from "./types.js";
import { interactingKeyword, notChanges, opaqueChanges, valueChanges } from "./values.js";
import { compareRefs } from "./walk.js";
import { witness } from "./witness.js";

type Dir = "backward" | "forward";

export class Checker implements WalkCtx {
  private readonly memo = new Map<string, Verdict>();
  private readonly active = new Map<string, number>();
  private assumed = 0;
  /** Pairs of nodes the reporting walk has entered (recursive schemas end there). */
  readonly entered = new Set<string>();

  compareRefs(o: Ref, n: Ref, depth: number): Result {
    return compareRefs(this, o, n, depth);
  }

  disjoint(a: Shape, b: Shape, depth: number): Tri {
    return disjointShapes(a, b, depth);
  }

  compareShapes(o: Shape, n: Shape, depth: number): Verdict {
    return this.guarded(`s${o.id}:${n.id}`, depth, () => {
      let backward = and(...o.atoms.map((a) => this.cover(a, o, n, depth, "backward")));
      let forward = and(...n.atoms.map((a) => this.cover(a, n, o, depth, "forward")));
      if (backward === "unknown" && witness(o, n) !== undefined) backward = "no";
      if (forward === "unknown" && witness(n, o) !== undefined) forward = "no";
      return { backward, forward };
    });
  }

  /** Atom-level verdict without reporting (memoized). */
  compareAtoms(o: Atom, n: Atom, depth: number): Verdict {
    return this.guarded(`a${o.id}:${n.id}`, depth, () => {
      const r = this.atomChanges(o, n, depth, false, "#");
      return { backward: r.backward, forward: r.forward };
    });
  }

  /**
   * Coinduction for recursive schemas: a pair met again deeper in the instance is assumed
   * to hold (sound for finite instances, by induction on depth); met again at the same
   * depth it is unknown. Results that leaned on an assumption are not memoized.
   */
  private guarded(key: string, depth: number, compute: () => Verdict): Verdict {
    const hit = this.memo.get(key);
    if (hit) return hit;
    const entered = this.active.get(key);
    if (entered !== undefined) {
      if (depth > entered) {
        this.assumed++;
        return { backward: "yes", forward: "yes" };
      }
      return { backward: "unknown", forward: "unknown" };
    }
    this.active.set(key, depth);
    const before = this.assumed;
    try {
      const v = compute();
      if (this.assumed === before) this.memo.set(key, v);
      return v;
    } finally {
      this.active.delete(key);
    }
  }

  /** Is every value of atom `x` (from shape `own`) admitted by shape `other`? */
  private cover(x: Atom, own: Shape, other: Shape, depth: number, dir: Dir): Tri {
    if (isEmptyAtom(x)) return "yes";
    const finite = finiteOf(x);
    if (finite) {
      // Values are judged against the whole side, so `oneOf` exclusivity counts.
      return and(
        ...finite.map((v): Tri => {
          const mine = accepts(own, v);
          if (mine === "no") return "yes";
          const theirs = accepts(other, v);
          return mine === "yes" || theirs === "yes" ? theirs : "unknown";
        }),
      );
    }
    const candidates = other.atoms.filter((c) => c.type === x.type);
    if (candidates.length === 0) return isExact(x) ? "no" : "unknown";
    let best: Tri = "no";
    const overlapping: Tri[] = [];
    for (const c of candidates) {
      let r = (dir === "backward" ? this.compareAtoms(x, c, depth) : this.compareAtoms(c, x, depth))[dir];
      if (r === "yes" && c.oneOf.length > 0) r = this.exclusive(x, c, depth, dir);
      best = or(best, r);
      if (best === "yes") return best;
      if (this.disjoint(newShape([x]), newShape([c]), depth) !== "yes") overlapping.push(r);
    }
    // Several candidates might cover `x` together; not when all but (at most) one share no value with it.
    if (best === "no" && isExact(x) && overlapping.length <= 1) return "no";
    return best === "no" ? "unknown" : best;
  }

  /**
   * `c` comes from branch m of a `oneOf`: every value of `x` must fail the other branches —
   * they are disjoint from `x`, or they lie inside a branch of a `oneOf` on `x`'s side
   * other than the one `x` came from (which `x`'s valid values fail, by that `oneOf`).
   */
  private exclusive(x: Atom, c: Atom, depth: number, dir: Dir): Tri {
    for (const { group, index } of c.oneOf) {
      for (let k = 0; k < group.branches.length; k++) {
        if (k === index) continue;
        const theirs = shapeOf(group.branches[k]!);
        if (this.disjoint(newShape([x]), theirs, depth) === "yes") continue;
        if (!this.insideOtherBranch(x, theirs, k, depth, dir)) return "unknown";
      }
    }
    return "yes";
  }

  private insideOtherBranch(x: Atom, theirs: Shape, hint: number, depth: number, dir: Dir): boolean {
    for (const { group, index } of x.oneOf) {
      const order = [hint, ...group.branches.keys()].filter((j, i, all) => j !== index && j < group.branches.length && all.indexOf(j) === i);
      for (const j of order) {
        const own = shapeOf(group.branches[j]!);
        const inside = dir === "backward" ? this.compareShapes(own, theirs, depth).forward : this.compareShapes(theirs, own, depth).backward;
        if (inside === "yes") return true;
      }
    }
    return false;
  }

  /** Compare two atoms of one type, keyword family by keyword family. */
  atomChanges(o: Atom, n: Atom, depth: number, report: boolean, nodePtr: string): Result {
    const [finO, finN] = [finiteOf(o), finiteOf(n)];
    let changes: RawChange[] = [];
    if (o.type === "number") changes.push(...numberChanges(o, n, finO as number[] | undefined, finN as number[] | undefined));
    if (o.type === "string") changes.push(...stringChanges(o, n, finO as string[] | undefined, finN as string[] | undefined));
    if (o.type === "array") changes.push(...arrayChanges(this, o, n, depth, report, nodePtr));
    if (o.type === "object") changes.push(...objectChanges(this, o, n, depth, report, nodePtr));
    // Keyword reasoning ignores `not`, unmodelled keywords and oneOf overlap: its "no" is only a maybe there.
    for (const c of changes) {
      if (c.backward === "no" && !isExact(o)) c.backward = "unknown";
      if (c.forward === "no" && !isExact(n)) c.forward = "unknown";
    }
    if (o.type === "object") changes.push(...dependencyChanges(this, o, n, depth));
    changes.push(...valueChanges(o, n, finO, finN), ...notChanges(this, o, n, depth), ...opaqueChanges(o, n));
    const interacting = interactingKeyword(o, n);
    if (interacting && changes.length > 0) {
      changes.push({ code: "UNDECIDABLE", path: nodePtr, backward: "unknown", forward: "unknown", message: `\`${interacting}\` depends on every sibling keyword, and they changed` });
    }
    // A finite side is decided exactly, value by value.
    // Unmodelled keywords both sides share are one and the same conjunct: judge the rest.
    // (`oneOf` exclusivity is judged by the caller, so a value of a `oneOf` atom is only maybe valid.)
    const shared = new Set(o.opaque.map((x) => x.key).filter((k) => n.opaque.some((y) => y.key === k)));
    const exactly = (fin: unknown[], own: Atom, other: Atom): Tri =>
      and(
        ...fin.map((v): Tri => {
          const mine = atomAccepts(own, v, 0, shared);
          if (mine === "no") return "yes";
          const theirs = atomAccepts(other, v, 0, shared);
          if (theirs === "no" && shared.size > 0) return "unknown";
          return (mine === "yes" && own.oneOf.length === 0) || theirs === "yes" ? theirs : "unknown";
        }),
      );
    if (finO) changes = reconcile(changes, { backward: exactly(finO, o, n) }, nodePtr, "ENUM_VALUE_REMOVED", "a value allowed before is no longer allowed");
    if (finN) changes = reconcile(changes, { forward: exactly(finN, n, o) }, nodePtr, "ENUM_VALUE_ADDED", "a value allowed now was not allowed before");
    if (isEmptyAtom(o)) force(changes, "backward", "yes");
    if (isEmptyAtom(n)) force(changes, "forward", "yes");
    return { changes, backward: and(...changes.map((c) => c.backward)), forward: and(...changes.map((c) => c.forward)) };
  }
}
