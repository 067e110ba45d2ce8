import { performance } from "node:perf_hooks";
import { compose } from "../../kernel/compose/compose.js";
import type { StackInput } from "../../kernel/compose/types.js";
import type { Hooks, Plugin } from "../../kernel/plugin/types.js";
import { KERNEL_VERSION } from "../../kernel/version.js";

const CHANNELS = 200;
const EDGES_PER_PLUGIN = 5;
const SIZES = [100, 1_000, 5_000] as const;

/** Deterministic (mulberry32): every run measures the same stacks. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const noop = (): undefined => undefined;

/**
 * `size` plugins owning 200 channels between them, each with ≈5 ordering edges (a chain edge
 * to its predecessor, so every conflicting pair is ordered and the stack composes, plus random
 * earlier plugins) and accesses in two hooks: dense constraints, a full race check, no problems.
 */
function syntheticStack(size: number): { stack: StackInput; plugins: Plugin[] } {
  const rand = random(size);
  const plugins: Plugin[] = [];
  const names: string[] = [];
  for (let i = 0; i < size; i++) {
    const name = `p${i}`;
    names.push(name);
    const requiresBefore = new Set<string>();
    if (i > 0) requiresBefore.add(names[i - 1]!);
    while (i > 0 && requiresBefore.size < Math.min(EDGES_PER_PLUGIN, i)) requiresBefore.add(names[Math.floor(rand() * i)]!);
    const owned: Record<string, { schema: Record<string, unknown>; reducer: "replace" | "sum" }> = {};
    for (let c = i; c < CHANNELS; c += size) owned[`c${c}`] = { schema: { type: "object" }, reducer: c % 4 === 0 ? "sum" : "replace" };
    const channel = () => `c${Math.floor(rand() * CHANNELS)}`;
    plugins.push({
      manifest: {
        name,
        version: "1.0.0",
        kind: "middleware",
        kernel: `>=${KERNEL_VERSION}`,
        description: "synthetic",
        requiresBefore: [...requiresBefore].map((n, k) => (k % 2 === 0 ? n : { name: n, optional: true })),
        observes: [channel(), channel()],
        mutates: [channel()],
        hooks: { beforeModel: {}, afterModel: { mutates: [channel(), "stopReasons"] } },
        channels: owned,
      },
      hooks: { beforeModel: noop, afterModel: noop } as Hooks,
    });
  }
  return { stack: { name: `synthetic-${size}`, plugins: names }, plugins };
}

function timeCompose(size: number): { ms: number; edges: number } {
  const { stack, plugins } = syntheticStack(size);
  let best = Infinity;
  let edges = 0;
  const runs = size >= 5_000 ? 2 : 4;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const composition = compose(stack, { plugins });
    best = Math.min(best, performance.now() - start);
    edges = composition.edges.length;
  }
  return { ms: best, edges };
}

/** Compose 100 / 1,000 / 5,000 synthetic plugins; one line per size, then the growth ratios. */
export async function benchCompose(): Promise<string[]> {
  const lines: string[] = [];
  const times: number[] = [];
  for (const size of SIZES) {
    const { ms, edges } = timeCompose(size);
    times.push(ms);
    lines.push(`compose ${size} plugins / ${edges} edges / ${CHANNELS} channels: ${ms.toFixed(1)} ms (best of runs)`);
  }
  for (let i = 1; i < SIZES.length; i++) {
    const sizeRatio = SIZES[i]! / SIZES[i - 1]!;
    lines.push(`growth ${SIZES[i - 1]} → ${SIZES[i]} plugins (×${sizeRatio}): time ×${(times[i]! / times[i - 1]!).toFixed(2)}`);
  }
  return lines;
}
