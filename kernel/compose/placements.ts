import { HOOK_NAMES } from "../../contracts/shared.js";
import type { CompositionProblem } from "../errors.js";
import type { HookName } from "../plugin/types.js";
import type { Member } from "./checks.js";
import { Reachability } from "./closure.js";
import type { OrderingGraph } from "./graph.js";
import { tick } from "./messages.js";
import { sortStable } from "./toposort.js";

/** after* chains run in reverse composed order: "runs first in the chain" is "later in the order". */
const REVERSED_HOOKS: ReadonlySet<HookName> = new Set<HookName>(["afterModel", "afterAgent"]);

/** The declarations along the shortest path `from → … → to` of the graph's edges (BFS). */
function pathReasons(graph: OrderingGraph, from: number, to: number): string[] {
  const parent = new Map<number, number>([[from, from]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    if (u === to) break;
    for (const v of graph.succ[u]!) {
      if (parent.has(v)) continue;
      parent.set(v, u);
      queue.push(v);
    }
  }
  const steps: string[] = [];
  for (let v = to; v !== from; v = parent.get(v)!) steps.unshift(graph.reasons(parent.get(v)!, v).join("; "));
  return steps;
}

/**
 * Step 4 (placements): a hook's `order: "pre"` puts its plugin before every plugin of the stack
 * that has the same hook without `"pre"`, `"post"` after every one without `"post"`, in that
 * hook's execution order. They are ordinary edges: they fix the composed order and count in the
 * race check. A placement that contradicts the declared edges (`requiresBefore`, the stack's
 * `order`) is `KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT`, naming both plugins and the declarations,
 * and adds no edge.
 */
export function addPlacementEdges(members: readonly Member[], graph: OrderingGraph, problems: CompositionProblem[]): void {
  const planned: Array<{ before: number; after: number; placer: Member; other: Member; hook: HookName; placement: "pre" | "post" }> = [];
  for (const hook of HOOK_NAMES) {
    const having = members.filter((m) => m.manifest.hooks[hook] !== undefined);
    const reversed = REVERSED_HOOKS.has(hook);
    for (const placer of having) {
      const placement = placer.manifest.hooks[hook]!.order;
      if (placement === undefined) continue;
      for (const other of having) {
        if (other === placer || other.manifest.hooks[hook]!.order === placement) continue;
        // "pre" runs first in the chain: before `other` in the composed order, unless the chain is reversed.
        const placerFirst = (placement === "pre") !== reversed;
        planned.push(placerFirst ? { before: placer.id, after: other.id, placer, other, hook, placement } : { before: other.id, after: placer.id, placer, other, hook, placement });
      }
    }
  }
  if (planned.length === 0) return;

  // Contradictions are judged against the declared edges only, before any placement is added.
  const declared = sortStable(graph);
  const reach = new Reachability(graph, declared.order);
  for (const edge of planned) {
    const { before, after, placer, other, hook, placement } = edge;
    const declaration = `${tick(placer.name)} hooks.${hook}.order "${placement}"`;
    const checkable = declared.placed[before] === 1 && declared.placed[after] === 1;
    if (checkable && reach.reaches(after, before)) {
      const path = pathReasons(graph, after, before);
      problems.push({
        code: "KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT",
        message: `${declaration} would run ${tick(placer.name)} ${placement === "pre" ? "before" : "after"} ${tick(other.name)} in ${hook}, but ${path.join(", then ")} orders ${tick(graph.names[after]!)} before ${tick(graph.names[before]!)}; drop the placement or the contradicting declaration`,
        plugins: [placer.name, other.name],
        hook,
        fix: `remove \`hooks.${hook}.order\` from ${tick(placer.name)}'s manifest, or remove the declaration that orders ${tick(graph.names[after]!)} before ${tick(graph.names[before]!)}`,
      });
      continue;
    }
    graph.addEdge(before, after, declaration);
  }
}
