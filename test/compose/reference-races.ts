/**
 * The race check as it was before the per-group linear one (kernel/compose/races.ts): every
 * pair of accessors of a (hook, channel) group, O(k²) per group. Kept verbatim as the test
 * oracle the property test compares the new checker against (same verdict, same problems, same order).
 */
import { HOOK_NAMES } from "../../contracts/shared.js";
import type { CompositionProblem } from "../../kernel/errors.js";
import type { Reachability } from "../../kernel/compose/closure.js";
import type { OrderingGraph } from "../../kernel/compose/graph.js";
import { orderPair, tick } from "../../kernel/compose/messages.js";
import type { ChannelAccess, ResolvedChannel } from "../../kernel/compose/types.js";

interface Accessor {
  readonly id: number;
  read: boolean;
  write: boolean;
}

/** The conflict between two accessors of one channel in one hook, if any (writer first). */
function conflictOf(a: Accessor, b: Accessor, commutative: boolean): "both" | [Accessor, Accessor] | undefined {
  if (a.write && b.write && !commutative) return "both";
  if (a.write && b.read) return [a, b];
  if (b.write && a.read) return [b, a];
  return undefined;
}

/**
 * Step 5: for every hook H and channel C, each pair of plugins whose accesses conflict
 * (write/write, or write/read; commutative writes never conflict with each other) must be
 * ordered by the transitive closure of the edges. Accesses are grouped per (hook, channel),
 * so the work is the sum of the squared group sizes, not quadratic in the whole stack.
 * Pairs with a plugin on or after a cycle are skipped: their order is undefined and the cycle
 * is reported already.
 */
export function checkRacesPairwise(
  access: readonly ChannelAccess[],
  channels: ReadonlyMap<string, ResolvedChannel>,
  graph: OrderingGraph,
  reach: Reachability,
  placed: Uint8Array,
  problems: CompositionProblem[],
): void {
  const groups = new Map<string, Map<number, Accessor>>();
  for (const row of access) {
    const key = `${row.hook}\u0000${row.channel}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = new Map()));
    const id = graph.ids.get(row.plugin)!;
    let accessor = group.get(id);
    if (accessor === undefined) group.set(id, (accessor = { id, read: false, write: false }));
    if (row.mode === "write") accessor.write = true;
    else accessor.read = true;
  }

  const found: Array<{ a: number; b: number; hook: number; channel: string; problem: CompositionProblem }> = [];
  for (const [key, group] of groups) {
    const [hook, channel] = key.split("\u0000") as [string, string];
    const commutative = channels.get(channel)?.commutative ?? false;
    const accessors = [...group.values()].filter((x) => placed[x.id] === 1).sort((x, y) => x.id - y.id);
    if (!accessors.some((x) => x.write)) continue;
    for (let i = 0; i < accessors.length; i++) {
      const a = accessors[i]!;
      for (let j = i + 1; j < accessors.length; j++) {
        const b = accessors[j]!;
        if (!a.write && !b.write) continue;
        const conflict = conflictOf(a, b, commutative);
        if (conflict === undefined || reach.ordered(a.id, b.id)) continue;
        const [first, second] = [graph.names[a.id]!, graph.names[b.id]!];
        const what =
          conflict === "both"
            ? `${tick(first)} and ${tick(second)} both mutate ${tick(channel)}`
            : `${tick(graph.names[conflict[0].id]!)} mutates and ${tick(graph.names[conflict[1].id]!)} observes ${tick(channel)}`;
        const fix =
          `add ${orderPair(first, second)} or ${orderPair(second, first)} to the stack's order, ` +
          `or order them in the manifest you control: \`"requiresBefore": ["${first}"]\` in ${tick(second)} or \`"requiresBefore": ["${second}"]\` in ${tick(first)}, ` +
          `or place the hook with \`hooks.${hook}.order\`: "pre" (runs first in ${hook}) or "post" (runs last)`;
        found.push({
          hook: (HOOK_NAMES as readonly string[]).indexOf(hook),
          channel,
          a: a.id,
          b: b.id,
          problem: {
            code: "KEEL_ERR_COMPOSE_RACE",
            message: `${what} in ${hook} with no order between them; add ${orderPair(first, second)} or ${orderPair(second, first)} to \`order\``,
            plugins: [first, second],
            hook,
            channel,
            fix,
          },
        });
      }
    }
  }
  // Deterministic report order: by the pair's listing order, then hook and channel.
  found.sort((x, y) => x.a - y.a || x.b - y.b || x.hook - y.hook || (x.channel < y.channel ? -1 : x.channel > y.channel ? 1 : 0));
  for (const f of found) problems.push(f.problem);
}
