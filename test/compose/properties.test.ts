import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOOK_NAMES } from "../../contracts/shared.js";
import { compose } from "../../kernel/compose/compose.js";
import type { StackInput } from "../../kernel/compose/types.js";
import { CompositionError, type CompositionProblem } from "../../kernel/errors.js";
import type { Manifest, Plugin } from "../../kernel/plugin/types.js";
import { type ManifestSketch, pluginFrom } from "./plugin-factory.js";

type Declaration = "hard" | "optional" | "order";
type Edge = { before: string; after: string; via: Declaration };

interface RandomStack {
  /** Names in listing order. */
  listing: string[];
  edges: Edge[];
  hooks: Record<string, Array<(typeof HOOK_NAMES)[number]>>;
}

/**
 * A random DAG: nodes get a hidden rank, edges go from lower to higher rank, and the listing
 * order is an independent shuffle. Each plugin reads `messages` and writes the commutative
 * `stopReasons` in random hooks, so nothing conflicts.
 */
const randomDag = (minNodes: number): fc.Arbitrary<RandomStack> =>
  fc.integer({ min: minNodes, max: 12 }).chain((n) =>
    fc
      .record({
        listing: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        pairs: fc.uniqueArray(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.constantFrom<Declaration>("hard", "optional", "order")), {
          maxLength: 2 * n,
          selector: ([a, b]) => `${Math.min(a, b)},${Math.max(a, b)}`,
        }),
        hooks: fc.array(fc.subarray([...HOOK_NAMES]), { minLength: n, maxLength: n }),
      })
      .map(({ listing, pairs, hooks }) => ({
        listing: listing.map((rank) => `n${rank}`),
        edges: pairs.filter(([a, b]) => a !== b).map(([a, b, via]) => ({ before: `n${Math.min(a, b)}`, after: `n${Math.max(a, b)}`, via })),
        hooks: Object.fromEntries(hooks.map((list, rank) => [`n${rank}`, list])),
      })),
  );

function build(random: RandomStack, extra: Edge[] = []): { stack: StackInput; plugins: Plugin[]; sketches: Map<string, ManifestSketch> } {
  const sketches = new Map<string, ManifestSketch>();
  for (const name of random.listing) {
    const hooks: Manifest["hooks"] = {};
    for (const hook of random.hooks[name]!) hooks[hook] = { observes: ["messages"], mutates: ["stopReasons"] };
    sketches.set(name, { name, hooks, requiresBefore: [] });
  }
  const order: Array<[string, string]> = [];
  for (const edge of [...random.edges, ...extra]) {
    if (edge.via === "order") order.push([edge.before, edge.after]);
    else sketches.get(edge.after)!.requiresBefore!.push(edge.via === "hard" ? edge.before : { name: edge.before, optional: true });
  }
  const plugins = [...sketches.values()].map((s) => pluginFrom(s));
  return { stack: { name: "random", plugins: [...random.listing], order }, plugins, sketches };
}

/** The specification, written the slow and obvious way. */
function referenceOrder(listing: readonly string[], edges: readonly Edge[]): string[] {
  const placed = new Set<string>();
  const out: string[] = [];
  while (out.length < listing.length) {
    const next = listing.find((x) => !placed.has(x) && edges.every((e) => e.after !== x || placed.has(e.before)))!;
    out.push(next);
    placed.add(next);
  }
  return out;
}

function reaches(edges: readonly Edge[], from: string, to: string): boolean {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (const e of edges) {
      if (e.before !== u) continue;
      if (e.after === to) return true;
      if (!seen.has(e.after)) seen.add(e.after), stack.push(e.after);
    }
  }
  return false;
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

describe("compose properties (fast-check)", () => {
  it("composes every acyclic stack, respecting every edge, in the stable Kahn order", () => {
    fc.assert(
      fc.property(randomDag(1), (random) => {
        const { stack, plugins } = build(random);
        const composition = compose(stack, { plugins });
        expect(composition.order).toEqual(referenceOrder(random.listing, random.edges));
        const position = new Map(composition.order.map((name, i) => [name, i]));
        for (const e of random.edges) expect(position.get(e.before)!).toBeLessThan(position.get(e.after)!);
        for (const hook of HOOK_NAMES) {
          const chain = composition.order.filter((name) => random.hooks[name]!.includes(hook));
          expect(composition.hooks[hook]).toEqual(hook.startsWith("after") ? chain.reverse() : chain);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("rejects one injected unordered conflicting access with KEEL_ERR_COMPOSE_RACE naming both plugins", () => {
    const conflict = fc.record({
      kind: fc.constantFrom("write/write", "write/read", "read/write"),
      hook: fc.constantFrom(...HOOK_NAMES),
      pick: fc.nat(),
      reducer: fc.constantFrom<NonNullable<Manifest["channels"]>[string]["reducer"]>(
        "replace",
        "append",
        { kind: "merge-by-id", key: "id" },
        "sum",
        "append-set",
        { kind: "append-set", key: ["id"] },
      ),
    });
    fc.assert(
      fc.property(randomDag(3), conflict, (random, { kind, hook, pick, reducer }) => {
        const commutative = reducer === "sum" || reducer === "append-set" || (typeof reducer === "object" && reducer.kind === "append-set");
        fc.pre(!(kind === "write/write" && commutative));
        const unordered: Array<[string, string]> = [];
        for (let i = 0; i < random.listing.length; i++)
          for (let j = i + 1; j < random.listing.length; j++) {
            const [a, b] = [random.listing[i]!, random.listing[j]!];
            if (!reaches(random.edges, a, b) && !reaches(random.edges, b, a)) unordered.push([a, b]);
          }
        fc.pre(unordered.length > 0);
        const [first, second] = unordered[pick % unordered.length]!;

        const { stack, plugins, sketches } = build(random);
        const owner = pluginFrom({ name: "owner", channels: { shared: { schema: {}, reducer } } });
        const [modeFirst, modeSecond] = kind.split("/") as ["write" | "read", "write" | "read"];
        const inject = (name: string, mode: "write" | "read"): Plugin => {
          const sketch = sketches.get(name)!;
          const declaration = sketch.hooks![hook] ?? {};
          const list = mode === "write" ? "mutates" : "observes";
          return pluginFrom({ ...sketch, hooks: { ...sketch.hooks, [hook]: { ...declaration, [list]: [...(declaration[list] ?? []), "shared"] } } });
        };
        const injected = plugins.map((p) =>
          p.manifest.name === first ? inject(first, modeFirst) : p.manifest.name === second ? inject(second, modeSecond) : p,
        );
        const withOwner: StackInput = { ...stack, plugins: ["owner", ...stack.plugins] };

        const problems = problemsOf(() => compose(withOwner, { plugins: [owner, ...injected] }));
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatchObject({
          code: "KEEL_ERR_COMPOSE_RACE",
          plugins: [first, second],
          hook,
          channel: "shared",
          fix: expect.stringContaining(`add ${JSON.stringify([first, second])} or ${JSON.stringify([second, first])} to the stack's order, or order them in the manifest you control`),
        });

        // The declared order is exactly what was missing.
        const ordered = compose({ ...withOwner, order: [...(withOwner.order ?? []), [second, first]] }, { plugins: [owner, ...injected] });
        expect(ordered.order.indexOf(second)).toBeLessThan(ordered.order.indexOf(first));
      }),
      { numRuns: 150 },
    );
  });

  it("reports an injected cycle with KEEL_ERR_COMPOSE_CYCLE whose path is a real cycle of the edges", () => {
    const injection = fc.record({
      size: fc.integer({ min: 1, max: 4 }),
      picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      vias: fc.array(fc.constantFrom<Declaration>("hard", "optional", "order"), { minLength: 4, maxLength: 4 }),
    });
    fc.assert(
      fc.property(randomDag(1), injection, (random, { size, picks, vias }) => {
        const pool = [...random.listing];
        const cycleNodes: string[] = [];
        for (let k = 0; k < Math.min(size, pool.length); k++) cycleNodes.push(pool.splice(picks[k]! % pool.length, 1)[0]!);
        const extra: Edge[] = cycleNodes.map((before, k) => ({ before, after: cycleNodes[(k + 1) % cycleNodes.length]!, via: vias[k]! }));
        const { stack, plugins } = build(random, extra);

        const problems = problemsOf(() => compose(stack, { plugins }));
        expect(problems.length).toBeGreaterThan(0);
        expect(problems.every((p) => p.code === "KEEL_ERR_COMPOSE_CYCLE")).toBe(true);
        const allEdges = [...random.edges, ...extra];
        for (const problem of problems) {
          const path = problem.cycle!;
          expect(path.length).toBeGreaterThanOrEqual(2);
          expect(path[0]).toBe(path[path.length - 1]);
          expect(new Set(path.slice(0, -1)).size).toBe(path.length - 1);
          for (let i = 0; i + 1 < path.length; i++) {
            expect(allEdges.some((e) => e.before === path[i] && e.after === path[i + 1])).toBe(true);
          }
          expect([...problem.plugins].sort()).toEqual([...new Set(path)].sort());
        }
      }),
      { numRuns: 150 },
    );
  });
});
