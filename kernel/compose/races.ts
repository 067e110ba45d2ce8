import { HOOK_NAMES } from "../../contracts/shared.js";
import type { CompositionProblem } from "../errors.js";
import type { OrderingGraph } from "./graph.js";
import { orderPair, tick } from "./messages.js";
import type { ChannelAccess, ResolvedChannel } from "./types.js";

/** What the race check asks of the transitive closure (`Reachability` answers it). */
export interface ReachQuery {
  /** Whether `before` is ordered before `after` by some path of edges. */
  reaches(before: number, after: number): boolean;
  /** Whether every source reaches every target (for large unordered blocks; may be pairwise). */
  allReach(sources: readonly number[], targets: readonly number[]): boolean;
}

/** One plugin's access to one channel in one hook: read only, write only, or both. */
interface Accessor {
  readonly id: number;
  read: boolean;
  write: boolean;
}

/**
 * A maximal run of consecutive accessors (in composed order) no two of which conflict:
 * readers only, or (on a commutative channel) writers only; any other accessor is a block
 * of its own. Two adjacent blocks always conflict pair by pair.
 */
interface Block {
  readonly members: Accessor[];
  readonly ids: number[];
}

/** The conflict between two accessors of one channel in one hook, if any (writer first). */
function conflictOf(a: Accessor, b: Accessor, commutative: boolean): "both" | [Accessor, Accessor] | undefined {
  if (a.write && b.write && !commutative) return "both";
  if (a.write && b.read) return [a, b];
  if (b.write && a.read) return [b, a];
  return undefined;
}

function mergesInto(block: Block, next: Accessor, commutative: boolean): boolean {
  const last = block.members[block.members.length - 1]!;
  if (last.read !== next.read || last.write !== next.write) return false;
  return !last.write || (!last.read && commutative);
}

function blocksOf(accessors: readonly Accessor[], commutative: boolean): Block[] {
  const blocks: Block[] = [];
  for (const accessor of accessors) {
    const last = blocks[blocks.length - 1];
    if (last !== undefined && mergesInto(last, accessor, commutative)) {
      last.members.push(accessor);
      last.ids.push(accessor.id);
    } else {
      blocks.push({ members: [accessor], ids: [accessor.id] });
    }
  }
  return blocks;
}

interface Group {
  readonly hook: string;
  readonly channel: string;
  /** In composed order, one per plugin. */
  readonly accessors: Accessor[];
}

interface Found {
  readonly a: number;
  readonly b: number;
  readonly hook: number;
  readonly channel: string;
  readonly problem: CompositionProblem;
}

function raceProblem(graph: OrderingGraph, hook: string, channel: string, a: Accessor, b: Accessor, conflict: "both" | [Accessor, Accessor]): CompositionProblem {
  const [first, second] = [graph.names[a.id]!, graph.names[b.id]!];
  const what =
    conflict === "both"
      ? `${tick(first)} and ${tick(second)} both mutate ${tick(channel)}`
      : `${tick(graph.names[conflict[0].id]!)} mutates and ${tick(graph.names[conflict[1].id]!)} observes ${tick(channel)}`;
  const fix =
    `add ${orderPair(first, second)} or ${orderPair(second, first)} to the stack's order, ` +
    `or order them in the manifest you control: \`"requiresBefore": ["${first}"]\` in ${tick(second)} or \`"requiresBefore": ["${second}"]\` in ${tick(first)}, ` +
    `or place the hook with \`hooks.${hook}.order\`: "pre" (runs first in ${hook}) or "post" (runs last)`;
  return {
    code: "KEEL_ERR_COMPOSE_RACE",
    message: `${what} in ${hook} with no order between them; add ${orderPair(first, second)} or ${orderPair(second, first)} to \`order\``,
    plugins: [first, second],
    hook,
    channel,
    fix,
  };
}

/**
 * The unordered conflicting pairs of one group whose blocks are split into segments at the
 * adjacent blocks that are not fully ordered. Inside a segment every conflicting pair is ordered
 * (through the blocks between them), so only pairs across segments are looked at; and inside an
 * earlier segment, the accessors that reach `y` are every block up to the last one with one that
 * does, so each walk stops at that block. Pairs come out as [earlier, later] in composed order.
 */
function unorderedPairs(blocks: readonly Block[], breaks: readonly boolean[], commutative: boolean, reach: ReachQuery): Array<[Accessor, Accessor]> {
  const segments: Block[][] = [[blocks[0]!]];
  for (let i = 1; i < blocks.length; i++) {
    if (breaks[i - 1]) segments.push([]);
    segments[segments.length - 1]!.push(blocks[i]!);
  }
  const pairs: Array<[Accessor, Accessor]> = [];
  for (let s = 1; s < segments.length; s++) {
    for (const block of segments[s]!) {
      for (const y of block.members) {
        for (let earlier = s - 1; earlier >= 0; earlier--) {
          const segment = segments[earlier]!;
          for (let k = segment.length - 1; k >= 0; k--) {
            const candidates = segment[k]!.members;
            if (conflictOf(candidates[0]!, y, commutative) === undefined) continue;
            let someReach = false;
            for (const x of candidates) {
              if (reach.reaches(x.id, y.id)) someReach = true;
              else pairs.push([x, y]);
            }
            if (someReach) break;
          }
        }
      }
    }
  }
  return pairs;
}

/**
 * Step 5: for every hook H and channel C, each pair of plugins whose accesses conflict
 * (write/write, or write/read; commutative writes never conflict with each other) must be
 * ordered by the transitive closure of the edges. Accesses are grouped per (hook, channel) and
 * taken in composed order, where they fall into blocks of mutually non-conflicting accessors
 * (readers; writers of a commutative channel); the group is race-free exactly when each block
 * is fully ordered before the next one. On a non-commutative channel every writer is a block of
 * its own, so that is the writers forming a chain and each reader checked against its nearest
 * writers before and after: linear work. Only a group that fails this check is searched for
 * its unordered pairs, walking back from each later accessor and stopping where the closure
 * orders the rest. Pairs with a plugin on or after a cycle are skipped: their order is
 * undefined and the cycle is reported already.
 */
export function checkRaces(
  access: readonly ChannelAccess[],
  channels: ReadonlyMap<string, ResolvedChannel>,
  graph: OrderingGraph,
  reach: ReachQuery,
  order: readonly number[],
  problems: CompositionProblem[],
): void {
  // Rows in composed order (a counting sort by position); rows of unplaced plugins are dropped.
  const position = new Int32Array(graph.names.length).fill(-1);
  order.forEach((id, i) => (position[id] = i));
  const rowId = access.map((row) => graph.ids.get(row.plugin)!);
  const start = new Int32Array(order.length + 1);
  for (const id of rowId) if (position[id]! >= 0) start[position[id]! + 1]!++;
  for (let p = 0; p < order.length; p++) start[p + 1]! += start[p]!;
  const sorted = new Int32Array(start[order.length]!);
  const fill = start.slice(0, order.length);
  rowId.forEach((id, i) => {
    if (position[id]! >= 0) sorted[fill[position[id]!]!++] = i;
  });

  // One group per (hook, channel), found through a map per hook (no key strings per row).
  const byHook = new Map<string, Map<string, Group>>();
  const groups: Group[] = [];
  for (const i of sorted) {
    const row = access[i]!;
    let forHook = byHook.get(row.hook);
    if (forHook === undefined) byHook.set(row.hook, (forHook = new Map()));
    let group = forHook.get(row.channel);
    if (group === undefined) {
      forHook.set(row.channel, (group = { hook: row.hook, channel: row.channel, accessors: [] }));
      groups.push(group);
    }
    const id = rowId[i]!;
    let accessor = group.accessors[group.accessors.length - 1];
    if (accessor?.id !== id) group.accessors.push((accessor = { id, read: false, write: false }));
    if (row.mode === "write") accessor.write = true;
    else accessor.read = true;
  }

  const found: Found[] = [];
  for (const { hook, channel, accessors } of groups) {
    const commutative = channels.get(channel)?.commutative ?? false;
    const blocks = blocksOf(accessors, commutative);
    const breaks = blocks.slice(1).map((next, i) => !reach.allReach(blocks[i]!.ids, next.ids));
    if (!breaks.includes(true)) continue;
    const hookIndex = (HOOK_NAMES as readonly string[]).indexOf(hook);
    for (const [x, y] of unorderedPairs(blocks, breaks, commutative, reach)) {
      const [a, b] = x.id < y.id ? [x, y] : [y, x];
      const problem = raceProblem(graph, hook, channel, a, b, conflictOf(a, b, commutative)!);
      found.push({ a: a.id, b: b.id, hook: hookIndex, channel, problem });
    }
  }
  // Deterministic report order: by the pair's listing order, then hook and channel.
  found.sort((x, y) => x.a - y.a || x.b - y.b || x.hook - y.hook || (x.channel < y.channel ? -1 : x.channel > y.channel ? 1 : 0));
  for (const f of found) problems.push(f.problem);
}
