import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { BaseMessage } from "@langchain/core/messages";
import { tool as lcTool } from "@langchain/core/tools";
import { createAgent, createMiddleware } from "langchain";
import { compose } from "../../kernel/compose/compose.js";
import type { Composition } from "../../kernel/compose/types.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { KeelTool, Plugin } from "../../kernel/plugin/types.js";
import { loadStack } from "../stacks/load-stack.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { bareLoop, benchScript, NOOP_TOOL_SCHEMA } from "./bare-loop.js";

/**
 * Per-turn cost of the agent loop against a bare hand-built LangGraph loop, with no
 * checkpointer on either side (serialization would hide the kernel), at growing history
 * lengths. Every variant runs the same script (N tool turns, then an answer); variants are
 * interleaved (rotating order) and repeated; figures are medians of whole runs.
 */
const DEFAULT_SIZES = [50, 200, 400, 1000, 2000] as const;
const REPEATS: Record<number, number> = { 50: 7, 200: 5, 400: 5, 1000: 3, 2000: 3 };
/**
 * At N = 2,000 (most of the suite's time: the bare loop alone is quadratic) a variant's
 * last round is skipped when its first two runs already agree: CPU time within STABLE of
 * each other (their median is then their mean). Every variant and N still runs.
 */
const ADAPTIVE_FROM = 2000;
const STABLE = 0.05;
const PLUGINS = 15;
const CREATE_AGENT_MAX_N = 200;

const noopKeelTool: KeelTool = { name: "noop", description: "does nothing", schema: NOOP_TOOL_SCHEMA as never, invoke: () => "ok" };
const toolsPlugin = definePlugin({
  manifest: { name: "bench-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "bench tool", hooks: {}, config: { type: "object" } },
  tools: [noopKeelTool],
});

/** With `reading`, every state hook observes `messages` and reads it (so enforcement's guarded views are paid for). */
function noopPlugin(i: number, reading = false): Plugin {
  const state = reading ? { observes: ["messages"] } : {};
  const read = reading ? (s: Record<string, unknown>) => void (s.messages as BaseMessage[]).at(-1) : () => undefined;
  return definePlugin({
    manifest: {
      name: `noop-${i}`, version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "no-op on every hook",
      hooks: { beforeAgent: state, beforeModel: state, wrapModelCall: {}, afterModel: state, wrapToolCall: {}, afterAgent: state },
    },
    hooks: {
      beforeAgent: read,
      beforeModel: read,
      wrapModelCall: (req, next) => next(req),
      afterModel: read,
      wrapToolCall: (req, next) => next(req),
      afterAgent: read,
    },
  });
}

type Variant = (turns: number) => Promise<void>;
/** Name, run, and the largest N it runs at (createAgent costs ~40 ms of CPU a turn: N ≤ 200 keeps the suite short). */
type BenchVariant = readonly [string, Variant, number?];

interface KeelRunOptions {
  enforcement?: boolean;
  tools?: KeelTool[];
  ports?: Record<string, unknown>;
  /** The run's model (default: the bench script's scripted model). */
  model?: (turns: number) => ScriptedChatModel;
}

function runKeel(composition: Composition, options: KeelRunOptions = {}): Variant {
  let n = 0;
  return async (turns) => {
    const runtime = createAgentRuntime(composition, {
      model: options.model?.(turns) ?? new ScriptedChatModel({ script: benchScript(turns) }),
      checkpointer: false,
      maxTurns: turns + 10,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.ports ? { ports: options.ports } : {}),
      ...(options.enforcement === undefined ? {} : { enforcement: options.enforcement }),
    });
    const result = await runtime.run({ threadId: `t${n}`, runId: `r${n++}`, input: "go" });
    if (result.outcome.status !== "succeeded" || result.turns !== turns + 1) throw new Error(`keel bench run ended ${result.outcome.status} after ${result.turns} turns`);
  };
}

function keel(plugins: number, options: { reading?: boolean; enforcement?: boolean; model?: KeelRunOptions["model"] } = {}): Variant {
  const composition = compose({ name: "bench", plugins: [toolsPlugin, ...Array.from({ length: plugins }, (_, i) => noopPlugin(i, options.reading))] });
  return runKeel(composition, options);
}

/** The built-in `lead` stack (its guards' limits out of this script's reach), the no-op tool passed to the runtime. */
async function leadStack(root: string, summarization: boolean): Promise<Variant> {
  const lead = await loadStack("lead", { pluginFiles: [], plugins: [], baseDir: process.cwd(), cwd: process.cwd() });
  const unlimited = { warnAt: 1_000_000, hardLimit: 1_000_000 };
  const config = {
    workspace: { root },
    "loop-detection": { perTool: { noop: unlimited } },
    // Off: the plugin stays in the stack (its per-turn estimate is paid) but never compacts.
    ...(summarization ? {} : { summarization: { triggerMessages: 1_000_000, contextTokens: 100_000_000 } }),
  };
  return runKeel(compose(lead.stack, { plugins: lead.plugins, config: [config] }), { tools: [noopKeelTool] });
}

/** langchain's createAgent (no checkpointer) with `middlewares` no-op middlewares implementing every hook. */
function langchainCreateAgent(middlewares: number): Variant {
  const noop = lcTool(() => "ok", { name: "noop", description: "does nothing", schema: NOOP_TOOL_SCHEMA as never });
  const middleware = Array.from({ length: middlewares }, (_, i) =>
    createMiddleware({
      name: `noop${i}`,
      beforeAgent: () => undefined,
      beforeModel: () => undefined,
      afterModel: () => undefined,
      afterAgent: () => undefined,
      wrapModelCall: (req, handler) => handler(req),
      wrapToolCall: (req, handler) => handler(req),
    }),
  );
  return async (turns) => {
    const agent = createAgent({ model: new ScriptedChatModel({ script: benchScript(turns) }), tools: [noop], middleware } as never);
    await (agent as { invoke: (i: unknown, c: unknown) => Promise<unknown> }).invoke({ messages: [{ role: "user", content: "go" }] }, { recursionLimit: (2 + middlewares * 4) * turns + 50 });
  };
}

interface Sample {
  wall: number;
  cpu: number;
}

async function measure(variant: Variant, turns: number): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await variant(turns);
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Totals {
  /** Median whole-run wall and CPU ms per N (the 1-turn run is N = 1). */
  wall: Map<number, number>;
  cpu: Map<number, number>;
}

/** Every variant at every N: rounds interleave the variants (rotating who goes first); each round also times a 1-turn run (startup). */
async function measureAll(variants: ReadonlyArray<BenchVariant>, sizes: readonly number[], repeats: Record<number, number>): Promise<{ totals: Totals[]; sections: string[] }> {
  const samples = variants.map(() => new Map<number, Sample[]>());
  const push = (v: number, n: number, s: Sample) => samples[v]!.set(n, [...(samples[v]!.get(n) ?? []), s]);
  for (const [, variant] of variants) await variant(50); // warm-up
  const sections: string[] = [];
  let rotation = 0;
  for (const n of sizes) {
    const started = performance.now();
    let runs = 0;
    for (let round = 0; round < (repeats[n] ?? 3); round++, rotation++) {
      for (let k = 0; k < variants.length; k++) {
        const v = (k + rotation) % variants.length;
        if (n > (variants[v]![2] ?? Infinity)) continue;
        if (round >= 2 && n >= ADAPTIVE_FROM && settled(samples[v]!.get(n) ?? [])) continue;
        push(v, 1, await measure(variants[v]![1], 1));
        push(v, n, await measure(variants[v]![1], n));
        runs += 1;
      }
    }
    sections.push(`N=${n} ${((performance.now() - started) / 1000).toFixed(0)} s (${runs} runs)`);
  }
  const totals = samples.map((byN) => ({
    wall: new Map([...byN].map(([n, s]) => [n, median(s.map((x) => x.wall))])),
    cpu: new Map([...byN].map(([n, s]) => [n, median(s.map((x) => x.cpu))])),
  }));
  return { totals, sections };
}

/** Two runs whose CPU times are within STABLE of each other: a third would not move their median much. */
function settled(runs: readonly Sample[]): boolean {
  if (runs.length !== 2) return false;
  const [a, b] = [runs[0]!.cpu, runs[1]!.cpu];
  return Math.abs(a - b) <= STABLE * Math.min(a, b);
}

/** Per-turn ms at N: (run of N turns − run of 1 turn) / (N − 1). */
const perTurn = (t: Map<number, number>, n: number) => (t.get(n)! - t.get(1)!) / (n - 1);
/** Marginal ms per turn from N=a to N=b: what each further turn of a longer history costs. */
const marginal = (t: Map<number, number>, a: number, b: number) => (t.get(b)! - t.get(a)!) / (b - a);

const fmt = (x: number, digits = 3) => x.toFixed(digits).padStart(7);

/** `npm run bench loop`; `sizes`, `repeats` and `only` (variant indexes) narrow it for a quick look. */
export async function benchLoop(options: { sizes?: readonly number[]; repeats?: Record<number, number>; only?: readonly number[]; enforcement?: boolean } = {}): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), "keel-bench-loop-"));
  const growthRuns = new GrowthRuns();
  try {
    const all: BenchVariant[] = [
      ["bare LangGraph loop (baseline)", bareLoop],
      ["keel, 0 plugins", keel(0)],
      [`keel, ${PLUGINS} no-op plugins`, keel(PLUGINS, { model: (turns) => growthRuns.model(turns) })],
      ["keel, lead stack, summarization on", await leadStack(root, true)],
      ["keel, lead stack, summarization off", await leadStack(root, false)],
      [`langchain createAgent, ${PLUGINS} no-op middlewares`, langchainCreateAgent(PLUGINS), CREATE_AGENT_MAX_N],
    ];
    const variants = all.filter((_, i) => i === 0 || !options.only || options.only.includes(i));
    const SIZES = options.sizes ?? DEFAULT_SIZES;
    const started = performance.now();
    const { totals, sections } = await measureAll(variants, SIZES, options.repeats ?? REPEATS);
    const base = totals[0]!;
    const lines = [
      `loop: per-turn ms (wall / process CPU) at N tool turns, no checkpointer on any side; (run of N − run of 1)/(N − 1), medians of ${SIZES.map((n) => `${(options.repeats ?? REPEATS)[n]}`).join("/")} interleaved runs (at N ≥ ${ADAPTIVE_FROM} the last only where the first two runs' CPU differs by more than ${STABLE * 100} %); ratio vs the bare loop`,
      `  ${"variant".padEnd(44)} ${SIZES.map((n) => `N=${n}`.padStart(26)).join("")}`,
    ];
    for (const [i, [name]] of variants.entries()) {
      const t = totals[i]!;
      const cells = SIZES.map((n) => {
        if (!t.wall.has(n)) return "—".padStart(26);
        const wall = perTurn(t.wall, n);
        const cpu = perTurn(t.cpu, n);
        return `${wall.toFixed(3)}/${cpu.toFixed(3)} ${(wall / perTurn(base.wall, n)).toFixed(2)}×`.padStart(26);
      });
      lines.push(`  ${name.padEnd(44)} ${cells.join("")}`);
    }
    lines.push(`  marginal ms per turn (wall / CPU) as history grows; flat when 1000→2000 is within 1.2× of 200→1000`);
    for (const [i, [name]] of variants.entries()) {
      const t = totals[i]!;
      if (!t.wall.has(2000) || !t.wall.has(200) || !t.wall.has(1000)) {
        lines.push(`  ${name.padEnd(44)} (runs to N=${CREATE_AGENT_MAX_N} only)`);
        continue;
      }
      const low = marginal(t.wall, 200, 1000);
      const high = marginal(t.wall, 1000, 2000);
      lines.push(`  ${name.padEnd(44)} 200→1000 ${fmt(low)}/${fmt(marginal(t.cpu, 200, 1000))}   1000→2000 ${fmt(high)}/${fmt(marginal(t.cpu, 1000, 2000))}   growth ${(high / low).toFixed(2)}×`);
    }
    lines.push(`  section times: ${sections.join(", ")}; all sizes ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const keel15 = totals[variants.findIndex((v) => v[0] === `keel, ${PLUGINS} no-op plugins`)];
    if (!keel15 || !keel15.wall.has(2000) || !keel15.wall.has(200) || !keel15.wall.has(1000)) return lines;
    const worst = (m: "wall" | "cpu") => Math.max(...SIZES.map((n) => perTurn(keel15[m], n) / perTurn(base[m], n))).toFixed(2);
    const inRun = await growthRuns.complete(variants.find((v) => v[0] === `keel, ${PLUGINS} no-op plugins`)![1]);
    lines.push(inRun.line);
    lines.push(`  target: keel with ${PLUGINS} plugins ≤ 1.25× the bare loop per turn at every N (worst ${worst("wall")}× wall, ${worst("cpu")}× CPU), flat to N=2000 (growth ≤ 1.2× inside one run: ${inRun.wall.toFixed(2)}× wall, ${inRun.cpu.toFixed(2)}× CPU)`);
    if (options.enforcement !== false) lines.push(...(await benchEnforcement()));
    return lines;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Runs of the in-run growth figure, and the history lengths it reads the clocks at. */
const GROWTH_RUNS = 7;
const GROWTH_MARKS = [200, 1000, 2000] as const;

/** The bench script's model, reading the wall and CPU clocks when a marked number of turns has been answered (as the next model call starts). */
class MarkedScriptedModel extends ScriptedChatModel {
  readonly marks = new Map<number, Sample>();
  constructor(turns: number) {
    super({ script: benchScript(turns) });
  }
  override async _generate(...args: Parameters<ScriptedChatModel["_generate"]>) {
    if ((GROWTH_MARKS as readonly number[]).includes(this.turnsAnswered)) {
      const cpu = process.cpuUsage();
      this.marks.set(this.turnsAnswered, { wall: performance.now(), cpu: (cpu.user + cpu.system) / 1000 });
    }
    return super._generate(...args);
  }
}

/**
 * Growth measured inside one run: a 2,000-turn run of Keel with 15 plugins reads the
 * clocks after turns 200, 1,000 and 2,000, and its growth is the marginal cost per turn
 * 1000→2000 over 200→1000; the figure is the median of GROWTH_RUNS runs' (the table's
 * 2,000-turn runs of that variant, then as many more as it takes). The table's growth
 * comes from whole runs of each N measured in separate sections minutes apart: a ratio of
 * differences of whole-run times, which amplifies the noise of each run and the machine's
 * drift between sections (readings 1.05–1.46× for the same code). Inside one run, both
 * stretches share the process, the heap and the same minutes.
 */
class GrowthRuns {
  private readonly runs: MarkedScriptedModel[] = [];
  private readonly last = GROWTH_MARKS[GROWTH_MARKS.length - 1]!;

  /** The model of a run of `turns`: marked (and kept) when the run is long enough to count. */
  model(turns: number): ScriptedChatModel {
    if (turns < this.last) return new ScriptedChatModel({ script: benchScript(turns) });
    const model = new MarkedScriptedModel(turns);
    this.runs.push(model);
    return model;
  }

  /** Runs `variant` (whose models come from `model`) until GROWTH_RUNS runs were marked, then the figure. */
  async complete(variant: Variant): Promise<{ wall: number; cpu: number; line: string }> {
    const started = performance.now();
    const fromTable = this.runs.length;
    while (this.runs.length < GROWTH_RUNS) await variant(this.last);
    const growth = (marks: Map<number, Sample>, m: keyof Sample) => {
      const [a, b, c] = GROWTH_MARKS.map((n) => marks.get(n)![m]) as [number, number, number];
      return (c - b) / (GROWTH_MARKS[2] - GROWTH_MARKS[1]) / ((b - a) / (GROWTH_MARKS[1] - GROWTH_MARKS[0]));
    };
    const wall = this.runs.map((r) => growth(r.marks, "wall"));
    const cpu = this.runs.map((r) => growth(r.marks, "cpu"));
    const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(" ");
    return {
      wall: median(wall),
      cpu: median(cpu),
      line: `  growth inside one run, keel with ${PLUGINS} plugins (clocks read after turns ${GROWTH_MARKS.join(", ")} of a ${this.last}-turn run; ${this.runs.length} runs, ${fromTable} of them the table's): median ${median(wall).toFixed(2)}× wall (${list(wall)}), ${median(cpu).toFixed(2)}× CPU (${list(cpu)}); ${((performance.now() - started) / 1000).toFixed(0)} s more`,
    };
  }
}

/**
 * The cost of run-time enforcement: the same kernel and stack (15 plugins whose state hooks
 * read `messages`, wrap hooks passing on) with enforcement off (the test-only switch) and on,
 * interleaved so drift hits both alike.
 */
async function benchEnforcement(): Promise<string[]> {
  const N = 200;
  const REPEATS_ON_OFF = 9;
  const variants = [
    ["off", keel(PLUGINS, { reading: true, enforcement: false })],
    ["on", keel(PLUGINS, { reading: true, enforcement: true })],
  ] as const;
  const started = performance.now();
  const { totals } = await measureAll(variants, [N], { [N]: REPEATS_ON_OFF });
  const [off, on] = totals as [Totals, Totals];
  const row = (label: string, t: Totals, ratio?: string) => `  ${label.padEnd(44)} ${perTurn(t.wall, N).toFixed(3).padStart(8)} / ${perTurn(t.cpu, N).toFixed(3).padStart(7)} ms/turn${ratio ?? ""}`;
  const ratio = (m: "wall" | "cpu") => (perTurn(on[m], N) / perTurn(off[m], N)).toFixed(3);
  return [
    `enforcement: per-turn ms (wall / process CPU), ${PLUGINS} plugins reading \`messages\`, ${N} tool turns, no checkpointer (median of ${REPEATS_ON_OFF} interleaved runs)`,
    row("enforcement off (test-only switch)", off),
    row("enforcement on (default)", on, `  ${ratio("wall")}× wall, ${ratio("cpu")}× CPU (target ≤ 1.05×)`),
    `  section time ${((performance.now() - started) / 1000).toFixed(0)} s`,
  ];
}
