import { performance } from "node:perf_hooks";
import { compose } from "../../kernel/compose/compose.js";
import type { StackInput } from "../../kernel/compose/types.js";
import type { Hooks, Plugin } from "../../kernel/plugin/types.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { seededRandom } from "../scenario/seeded-random.js";

const CHANNELS = 200;
const EDGES_PER_PLUGIN = 5;
const SIZES = [100, 1_000, 5_000, 10_000] as const;

const noop = (): undefined => undefined;

/**
 * `size` plugins owning 200 channels between them, each with ≈5 ordering edges (a chain edge
 * to its predecessor, so every conflicting pair is ordered and the stack composes, plus random
 * earlier plugins) and accesses in two hooks: dense constraints, a full race check, no problems.
 */
export function syntheticStack(size: number): { stack: StackInput; plugins: Plugin[] } {
  const rand = seededRandom(size); // deterministic: every run measures the same stacks
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

/** Rounds over every size (sizes interleaved); each figure is the median of its rounds. */
const ROUNDS = 5;

interface Timing {
  wallMs: number;
  cpuMs: number;
  edges: number;
}

function composeOnce(input: { stack: StackInput; plugins: Plugin[] }): Timing {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const composition = compose(input.stack, { plugins: input.plugins });
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, edges: composition.edges.length };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Compose 100 / 1,000 / 5,000 / 10,000 synthetic plugins: one line per size (median wall and
 * process CPU time), then the growth ratios against the next smaller size (linear work: the
 * time grows like the size; the closure's bitsets add a term quadratic in the size, /32).
 */
export async function benchCompose(): Promise<string[]> {
  const inputs = SIZES.map((size) => syntheticStack(size));
  const timings: Timing[][] = SIZES.map(() => []);
  // Warm-up: AJV compiles the shared schemas once, and the JIT sees every step at a mid size.
  composeOnce(inputs[0]!);
  composeOnce(inputs[1]!);
  for (let round = 0; round < ROUNDS; round++) inputs.forEach((input, i) => timings[i]!.push(composeOnce(input)));
  const lines: string[] = [];
  const wall = timings.map((runs) => median(runs.map((t) => t.wallMs)));
  const cpu = timings.map((runs) => median(runs.map((t) => t.cpuMs)));
  SIZES.forEach((size, i) => {
    lines.push(`compose ${size} plugins / ${timings[i]![0]!.edges} edges / ${CHANNELS} channels: ${wall[i]!.toFixed(1)} ms wall, ${cpu[i]!.toFixed(1)} ms CPU (median of ${ROUNDS})`);
  });
  for (let i = 1; i < SIZES.length; i++) {
    const sizeRatio = SIZES[i]! / SIZES[i - 1]!;
    lines.push(`growth ${SIZES[i - 1]} → ${SIZES[i]} plugins (×${sizeRatio}): wall ×${(wall[i]! / wall[i - 1]!).toFixed(2)}, CPU ×${(cpu[i]! / cpu[i - 1]!).toFixed(2)}`);
  }
  return lines;
}
