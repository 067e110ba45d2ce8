import type { CompositionProblem } from "../errors.js";
import type { Member } from "./checks.js";
import { orderPair, tick } from "./messages.js";
import type { OrderingEdge, StackInput } from "./types.js";

/** The ordering constraints between members; node ids are member ids (listing order). */
export interface OrderingGraph {
  readonly names: readonly string[];
  readonly ids: ReadonlyMap<string, number>;
  /** Successors ("must run after") of each node, without duplicates. */
  readonly succ: readonly number[][];
  /** Every edge with the declaration that made it, in declaration order. */
  readonly edges: readonly OrderingEdge[];
  /** The declarations behind the edge `before → after`. */
  reasons(before: number, after: number): readonly string[];
  /** Add an edge (later steps: hook placements); a repeated reason for a pair is ignored. */
  addEdge(before: number, after: number, reason: string): void;
}

/**
 * Step 4 (edges): `requiresBefore` entries (hard or optional) and the stack's `order` pairs.
 * A hard dependency or an `order` name that is not in the stack is `KEEL_ERR_COMPOSE_MISSING_DEP`.
 */
export function buildOrderingGraph(
  members: readonly Member[],
  listed: ReadonlySet<string>,
  order: StackInput["order"] | unknown,
  problems: CompositionProblem[],
): OrderingGraph {
  const names = members.map((m) => m.name);
  const ids = new Map(names.map((name, id) => [name, id] as const));
  const succ: number[][] = names.map(() => []);
  const edges: OrderingEdge[] = [];
  const reasonsByPair = new Map<number, string[]>();
  const n = names.length;

  const addEdge = (before: number, after: number, reason: string): void => {
    const key = before * n + after;
    let reasons = reasonsByPair.get(key);
    if (reasons === undefined) {
      reasonsByPair.set(key, (reasons = []));
      succ[before]!.push(after);
    }
    if (reasons.includes(reason)) return;
    reasons.push(reason);
    edges.push({ before: names[before]!, after: names[after]!, reason });
  };

  for (const member of members) {
    for (const ref of member.manifest.requiresBefore ?? []) {
      const required = typeof ref === "string" ? ref : ref.name;
      const optional = typeof ref !== "string" && ref.optional === true;
      const before = ids.get(required);
      if (before !== undefined) {
        addEdge(before, member.id, `${tick(member.name)} requiresBefore ${tick(required)}${optional ? " (optional)" : ""}`);
        continue;
      }
      // Present but left out (invalid manifest): that problem is already reported.
      if (optional || listed.has(required)) continue;
      problems.push({
        code: "KEEL_ERR_COMPOSE_MISSING_DEP",
        message: `${tick(member.name)} requiresBefore ${tick(required)} (a hard dependency), but ${tick(required)} is not in the stack; add ${tick(required)} to the stack, or make the entry \`{ "name": "${required}", "optional": true }\` if it is only an ordering rule`,
        plugins: [member.name, required],
        fix: `add ${tick(required)} to the stack`,
      });
    }
  }

  if (order !== undefined && !Array.isArray(order)) {
    problems.push({ code: "KEEL_ERR_STACK_INVALID", message: "the stack's `order` must be a list of `[before, after]` pairs", plugins: [], pointer: "/order", fix: 'write `order` as `[["a","b"]]`' });
  }
  (Array.isArray(order) ? (order as unknown[]) : []).forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") {
      problems.push({ code: "KEEL_ERR_STACK_INVALID", message: `the stack's \`order\` entry at \`/order/${i}\` is not a \`[before, after]\` pair of plugin names`, plugins: [], pointer: `/order/${i}`, fix: 'write the pair as `["a","b"]`' });
      return;
    }
    const [a, b] = pair as [string, string];
    const declaration = `stack order ${orderPair(a, b)}`;
    let complete = true;
    for (const name of [a, b]) {
      if (ids.has(name)) continue;
      complete = false;
      if (listed.has(name)) continue;
      problems.push({
        code: "KEEL_ERR_COMPOSE_MISSING_DEP",
        message: `${declaration} (at \`/order/${i}\`) names ${tick(name)}, which is not in the stack; add ${tick(name)} to the stack or remove the pair from \`order\``,
        plugins: [name],
        pointer: `/order/${i}`,
        fix: `add ${tick(name)} to the stack or remove ${orderPair(a, b)} from \`order\``,
      });
    }
    if (complete) addEdge(ids.get(a)!, ids.get(b)!, declaration);
  });

  return {
    names,
    ids,
    succ,
    edges,
    reasons: (before, after) => reasonsByPair.get(before * n + after) ?? [],
    addEdge,
  };
}
