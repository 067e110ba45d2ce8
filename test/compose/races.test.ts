import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveChannels } from "../../kernel/compose/channels.js";
import { checkMembers } from "../../kernel/compose/checks.js";
import { Reachability } from "../../kernel/compose/closure.js";
import { compose } from "../../kernel/compose/compose.js";
import { buildOrderingGraph } from "../../kernel/compose/graph.js";
import { implicitWrapAccess } from "../../kernel/compose/implicit-access.js";
import { addPlacementEdges } from "../../kernel/compose/placements.js";
import { checkRaces, type ReachQuery } from "../../kernel/compose/races.js";
import { resolveStackEntries } from "../../kernel/compose/resolve-plugins.js";
import { sortStable } from "../../kernel/compose/toposort.js";
import type { StackInput } from "../../kernel/compose/types.js";
import { CompositionError, type CompositionProblem } from "../../kernel/errors.js";
import type { HookName, Manifest, Plugin } from "../../kernel/plugin/types.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { pluginFrom } from "./plugin-factory.js";
import { checkRacesPairwise } from "./reference-races.js";

/** Channels the random plugins touch: two that race on every write, two whose writes commute, and kernel ones. */
const OWNED = { r1: "replace", r2: "append", s1: "sum", a1: "append-set" } as const;
const CHANNELS = [...Object.keys(OWNED), "messages", "stopReasons", "model.request", "tool.response"];
const HOOKS = ["beforeModel", "afterModel", "wrapModelCall", "wrapToolCall"] as const satisfies readonly HookName[];

interface Sketch {
  /** Hidden rank: edges go from lower to higher rank, so only the injected back edges make cycles. */
  listing: number[];
  edges: Array<[number, number, "hard" | "optional" | "order"]>;
  backEdges: Array<[number, number]>;
  plugins: Array<Partial<Record<(typeof HOOKS)[number], { observes: string[]; mutates: string[]; order?: "pre" | "post" }>>>;
}

const accessList = fc.subarray(CHANNELS, { maxLength: 3 });
const hookDeclaration = fc.record(
  { observes: accessList, mutates: accessList, order: fc.constantFrom<"pre" | "post">("pre", "post") },
  { requiredKeys: ["observes", "mutates"] },
);

/** Random stacks from race-free to full of races: edge density varies from none to a full order. */
const randomComposition: fc.Arbitrary<Sketch> = fc.integer({ min: 2, max: 14 }).chain((n) =>
  fc.record({
    listing: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    edges: fc.uniqueArray(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.constantFrom<"hard" | "optional" | "order">("hard", "optional", "order")), {
      maxLength: (n * (n - 1)) / 2,
      selector: ([a, b]) => `${Math.min(a, b)},${Math.max(a, b)}`,
    }),
    backEdges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 1 }),
    plugins: fc.array(
      fc.record(
        { beforeModel: hookDeclaration, afterModel: hookDeclaration, wrapModelCall: hookDeclaration, wrapToolCall: hookDeclaration },
        { requiredKeys: [] },
      ),
      { minLength: n, maxLength: n },
    ),
  }),
);

/** Placements are rare, so that most stacks are ordered by their edges alone. */
function withoutMostPlacements(sketch: Sketch, keepPlacements: boolean): Sketch {
  if (keepPlacements) return sketch;
  return { ...sketch, plugins: sketch.plugins.map((hooks) => Object.fromEntries(Object.entries(hooks).map(([h, d]) => [h, { observes: d.observes, mutates: d.mutates }]))) };
}

function stackOf(sketch: Sketch): { stack: StackInput; plugins: Plugin[] } {
  const name = (rank: number) => `n${rank}`;
  const requires = new Map<number, Manifest["requiresBefore"] & unknown[]>();
  const order: Array<[string, string]> = [];
  for (const [x, y, via] of sketch.edges) {
    if (x === y) continue;
    const [before, after] = [Math.min(x, y), Math.max(x, y)];
    if (via === "order") order.push([name(before), name(after)]);
    else {
      const list = requires.get(after) ?? [];
      list.push(via === "hard" ? name(before) : { name: name(before), optional: true });
      requires.set(after, list);
    }
  }
  for (const [x, y] of sketch.backEdges) order.push([name(Math.max(x, y)), name(Math.min(x, y))]);
  const owner = pluginFrom({ name: "owner", channels: Object.fromEntries(Object.entries(OWNED).map(([c, reducer]) => [c, { schema: {}, reducer }])) });
  const plugins = sketch.plugins.map((hooks, rank) => pluginFrom({ name: name(rank), hooks: hooks as Manifest["hooks"], requiresBefore: requires.get(rank) ?? [] }));
  const listing = sketch.listing.map(name);
  return { stack: { name: "random", plugins: ["owner", ...listing], order }, plugins: [owner, ...plugins] };
}

/** compose()'s steps up to the race check, then both checkers on the same inputs. */
function bothCheckers(stack: StackInput, plugins: Plugin[], reachFor: (reach: Reachability) => ReachQuery = (r) => r) {
  const setup: CompositionProblem[] = [];
  const candidates = resolveStackEntries(stack, { plugins }, setup);
  const { members, listed } = checkMembers(candidates, KERNEL_VERSION, setup);
  const { channels, access } = resolveChannels(members, setup);
  const graph = buildOrderingGraph(members, listed, stack.order, setup);
  addPlacementEdges(members, graph, setup);
  const sorted = sortStable(graph);
  const reach = new Reachability(graph, sorted.order);
  const rows = [...access, ...implicitWrapAccess(members, access)];
  const linear: CompositionProblem[] = [];
  checkRaces(rows, channels, graph, reachFor(reach), sorted.order, linear);
  const pairwise: CompositionProblem[] = [];
  checkRacesPairwise(rows, channels, graph, reach, sorted.placed, pairwise);
  return { linear, pairwise, setup, rows, cycles: sorted.cycles.length };
}

/** A ReachQuery that counts the pairs it is asked about (allReach: sources × targets at most). */
function counting(reach: Reachability): ReachQuery & { pairs: number } {
  const counter = {
    pairs: 0,
    reaches(a: number, b: number) {
      counter.pairs++;
      return reach.reaches(a, b);
    },
    allReach(sources: readonly number[], targets: readonly number[]) {
      counter.pairs += sources.length * targets.length;
      return reach.allReach(sources, targets);
    },
  };
  return counter;
}

function problemsOf(run: () => unknown): readonly CompositionProblem[] {
  try {
    run();
  } catch (error) {
    if (error instanceof CompositionError) return error.problems;
    throw error;
  }
  return [];
}

/** `size` plugins in one chain, each reading and writing `r1` and writing the commutative `stopReasons`. */
function chainStack(size: number, drop?: number): { stack: StackInput; plugins: Plugin[] } {
  const owner = pluginFrom({ name: "owner", channels: { r1: { schema: {}, reducer: "replace" } } });
  const plugins: Plugin[] = [owner];
  for (let i = 0; i < size; i++) {
    // Without the edge drop-1 → drop, the bypasses drop-2 → drop and drop-1 → drop+1 keep every other pair ordered.
    const requiresBefore = i === 0 || i === drop ? [] : [`p${i - 1}`];
    if (drop !== undefined && i === drop + 1) requiresBefore.push(`p${drop - 1}`);
    if (drop !== undefined && i === drop) requiresBefore.push(`p${drop - 2}`);
    const hooks = { afterModel: { observes: i % 3 === 0 ? ["r1"] : [], mutates: i % 3 === 0 ? ["stopReasons"] : ["r1", "stopReasons"] } };
    plugins.push(pluginFrom({ name: `p${i}`, hooks, requiresBefore }));
  }
  return { stack: { name: "chain", plugins: plugins.map((p) => p.manifest.name) }, plugins };
}

describe("race check: linear per (hook, channel) group, same problems as the pairwise check", () => {
  it("gives the same verdict and the same problems, in the same order, as the pairwise checker on random compositions", () => {
    let racy = 0;
    let clean = 0;
    let cyclic = 0;
    fc.assert(
      fc.property(randomComposition, fc.boolean(), (sketch, keepPlacements) => {
        const { stack, plugins } = stackOf(withoutMostPlacements(sketch, keepPlacements));
        const { linear, pairwise, cycles, setup } = bothCheckers(stack, plugins);
        expect(setup.filter((p) => p.code === "KEEL_ERR_MANIFEST_INVALID")).toEqual([]);
        expect(linear).toEqual(pairwise);
        if (cycles > 0) cyclic++;
        if (pairwise.length > 0) racy++;
        else clean++;
      }),
      { numRuns: 400 },
    );
    // Both verdicts were exercised, not one of them only.
    expect(racy).toBeGreaterThan(50);
    expect(clean).toBeGreaterThan(20);
    expect(cyclic).toBeGreaterThan(20);
  });

  it("gives compose() the same problems list as the pairwise checker would (other problems unchanged around them)", () => {
    fc.assert(
      fc.property(randomComposition, (sketch) => {
        const { stack, plugins } = stackOf(withoutMostPlacements(sketch, false));
        const { pairwise } = bothCheckers(stack, plugins);
        const races = problemsOf(() => compose(stack, { plugins })).filter((p) => p.code === "KEEL_ERR_COMPOSE_RACE");
        expect(races).toEqual(pairwise);
      }),
      { numRuns: 100 },
    );
  });

  it("asks the closure about a linear number of pairs on a race-free stack of 3,000 plugins (the pairwise check: millions)", () => {
    const { stack, plugins } = chainStack(3_000);
    let counter: ReturnType<typeof counting> | undefined;
    const { linear, pairwise, rows } = bothCheckers(stack, plugins, (reach) => (counter = counting(reach)));
    expect(linear).toEqual([]);
    expect(pairwise).toEqual([]);
    expect(rows.length).toBe(6_000);
    // One query per accessor and its predecessor block; the 3,000 commutative `stopReasons` writers are one block.
    expect(counter!.pairs).toBeLessThanOrEqual(rows.length);
    expect(counter!.pairs).toBeGreaterThan(0);
  });

  it("finds the one unordered pair of a broken 3,000-plugin chain with work linear in the group, not quadratic", () => {
    const drop = 1_500;
    const { stack, plugins } = chainStack(3_000, drop);
    let counter: ReturnType<typeof counting> | undefined;
    const { linear, pairwise } = bothCheckers(stack, plugins, (reach) => (counter = counting(reach)));
    expect(pairwise.map((p) => [p.plugins, p.channel])).toEqual([[[`p${drop - 1}`, `p${drop}`], "r1"]]);
    expect(linear).toEqual(pairwise);
    expect(counter!.pairs).toBeLessThanOrEqual(3 * 6_000);
  });

  it("checks large unordered blocks of a commutative channel through the closure's rows, still the same verdict", () => {
    // 200 unordered writers of `s1`, then 200 unordered readers, each reader after every writer.
    const owner = pluginFrom({ name: "owner", channels: { s1: { schema: {}, reducer: "sum" } } });
    const writers = Array.from({ length: 200 }, (_, i) => pluginFrom({ name: `w${i}`, hooks: { beforeModel: { mutates: ["s1"] } } }));
    const hub = pluginFrom({ name: "hub", hooks: { beforeModel: {} }, requiresBefore: writers.map((w) => w.manifest.name) });
    const readers = Array.from({ length: 200 }, (_, i) =>
      pluginFrom({ name: `r${i}`, hooks: { beforeModel: { observes: ["s1"] } }, requiresBefore: i === 137 ? [] : ["hub"] }),
    );
    const all = [owner, ...writers, hub, ...readers];
    const stack = { name: "blocks", plugins: all.map((p) => p.manifest.name) };
    const { linear, pairwise } = bothCheckers(stack, all);
    // r137 is not after the hub: it races with every writer.
    expect(pairwise).toHaveLength(200);
    expect(pairwise.every((p) => p.plugins[1] === "r137" && p.channel === "s1")).toBe(true);
    expect(linear).toEqual(pairwise);

    const fixed = all.map((p) => (p.manifest.name === "r137" ? pluginFrom({ ...p.manifest, requiresBefore: ["hub"] }) : p));
    const clean = bothCheckers(stack, fixed);
    expect(clean.linear).toEqual([]);
    expect(clean.pairwise).toEqual([]);
  });
});
