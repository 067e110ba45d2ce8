import type { OrderingGraph } from "./graph.js";

/**
 * Transitive closure of the ordering edges as one bitset row per node (descendants),
 * filled in reverse topological order: O(E · n/32) word operations, ~3 MB for 5,000 plugins.
 * Only nodes of `order` get a row; unplaced nodes (on or after a cycle) have none.
 */
export class Reachability {
  private readonly words: number;
  private readonly bits: Uint32Array;

  constructor(graph: OrderingGraph, order: readonly number[]) {
    const n = graph.names.length;
    this.words = (n + 31) >>> 5;
    this.bits = new Uint32Array(this.words * n);
    const { words, bits } = this;
    for (let k = order.length - 1; k >= 0; k--) {
      const u = order[k]!;
      const row = u * words;
      for (const v of graph.succ[u]!) {
        bits[row + (v >>> 5)]! |= 1 << (v & 31);
        const other = v * words;
        for (let w = 0; w < words; w++) bits[row + w]! |= bits[other + w]!;
      }
    }
  }

  /** Whether `before` is ordered before `after` by some path of edges. */
  reaches(before: number, after: number): boolean {
    return (this.bits[before * this.words + (after >>> 5)]! & (1 << (after & 31))) !== 0;
  }

  /** Whether the two are ordered, either way. */
  ordered(a: number, b: number): boolean {
    return this.reaches(a, b) || this.reaches(b, a);
  }
}
