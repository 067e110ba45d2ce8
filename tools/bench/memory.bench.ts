/**
 * Bounded memory on the default single server: a real `keel serve` (SQLite store and
 * checkpoints, the in-memory stream bridge, the gateway on loopback) in a child process
 * run with `--expose-gc`, given RUNS runs one after another, each on a fresh thread with a
 * 900 KiB input through `POST /threads/:tid/runs/wait`. Every STEP runs, after a forced GC,
 * the child reads its RSS, JS heap, `external` and `arrayBuffers` (a Buffer leak shows in
 * the last two, a JS leak in the heap).
 *
 * RSS after a GC is not a level one point can be read from: between two readings 25 runs
 * apart it moves by up to ±40 MiB with no trend (the allocator and V8 hand pages back to the
 * OS unevenly; a 1,000-run child on 2026-12-02 read 300–385 MiB with the heap flat at
 * 147–150 MiB). So the figure compares two windows of readings: the median RSS of the
 * readings in runs 100–200 (the 64 MiB budget is full after about 70 runs of 900 KiB) and
 * of the last 100 runs (the target: late ≤ early + 10 %); the single readings are shown too.
 * By default the last run is run 500 (runs 100 → 500 pass 350 MiB more through a full
 * budget); KEEL_BENCH_MEMORY_RUNS=1000 gives the 1,000-run figure.
 *
 * Two variants, interleaved ROUNDS times, medians: the default byte budget (64 MiB), and
 * no byte budget (`--stream-memory-mb 1048576`: only the 1,024-event cap, as before the
 * budget existed) — the baseline that shows what the budget bounds; it stops at
 * BASELINE_RUNS (its memory only grows, and each run costs ~0.3 s of CPU; its windows are
 * runs 100–150 and 150–200). Each child also reports the bridge's held bytes
 * (`keel_stream_bridge_memory_bytes`) and its wall and CPU time per run.
 *
 * `KEEL_BENCH_MEMORY_RUNS` (default 500; it was 1000, ≈5–6 min of the whole bench),
 * `KEEL_BENCH_MEMORY_BASELINE_RUNS` (default 200) and `KEEL_BENCH_MEMORY_ROUNDS`
 * (default 1) scale it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const RUNS = positiveInt(process.env.KEEL_BENCH_MEMORY_RUNS, 500);
const BASELINE_RUNS = Math.min(RUNS, positiveInt(process.env.KEEL_BENCH_MEMORY_BASELINE_RUNS, 200));
const ROUNDS = positiveInt(process.env.KEEL_BENCH_MEMORY_ROUNDS, 1);
/** A child reads its memory every STEP runs (and at its last run). */
const STEP = 25;
const readingsAt = (runs: number) => [...Array.from({ length: Math.floor(runs / STEP) }, (_, i) => (i + 1) * STEP), runs].filter((n, i, all) => all.indexOf(n) === i);
/** The readings the table shows one by one. */
const SHOWN = [100, 200, 500, RUNS].filter((n, i, all) => n <= RUNS && all.indexOf(n) === i);
/**
 * The two windows the figure compares, for a child of `runs` runs: from run 100 (the budget
 * is full by then) over the next 100 runs, and the last 100 runs (halved for a short child).
 */
function windows(runs: number): { early: [number, number]; late: [number, number] } {
  const start = Math.min(100, Math.floor(runs / 2));
  const width = Math.min(100, Math.floor(runs / 4));
  return { early: [start, start + width], late: [runs - width, runs] };
}
const INPUT_BYTES = 900 * 1024;
/** 1 TiB: no byte budget in practice (the flag's maximum). */
const UNBOUNDED_MB = 1_048_576;

interface Variant {
  label: string;
  streamMemoryMb: number;
  runs: number;
}

const VARIANTS: Variant[] = [
  { label: "no byte budget (1,024-event cap only: before)", streamMemoryMb: UNBOUNDED_MB, runs: BASELINE_RUNS },
  { label: "64 MiB byte budget (default)", streamMemoryMb: 64, runs: RUNS },
];

interface Point {
  runs: number;
  rssMb: number;
  heapMb: number;
  /** C++ objects bound to JS objects, and the ArrayBuffers / Buffers among them. */
  externalMb: number;
  arrayBuffersMb: number;
  bridgeMb: number;
}

interface ChildResult {
  points: Point[];
  wallMsPerRun: number;
  cpuMsPerRun: number;
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

/** NaN when there is nothing to take it of (a child too short for a window of readings). */
const median = (values: number[]) => (values.length === 0 ? Number.NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
const mb = (bytes: number) => bytes / (1024 * 1024);

export async function benchMemory(): Promise<string[]> {
  const started = performance.now();
  const results = new Map<string, ChildResult[]>(VARIANTS.map((v) => [v.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) results.get(variant.label)!.push(await runChild(variant));
  }
  const lines = [
    `memory: a keel serve child (SQLite, in-memory bridge, --expose-gc), up to ${RUNS} runs with ${INPUT_BYTES / 1024} KiB inputs on fresh threads via /runs/wait; memory after a forced GC every ${STEP} runs; RSS early / late = median of the readings in the two windows; medians of ${ROUNDS} round(s)`,
    `| variant | runs | ${SHOWN.map((n) => `RSS @${n} MiB`).join(" | ")} | RSS early → late MiB (windows) | late / early | RSS min–max from the early window on MiB | heap early → late MiB | external, arrayBuffers early → late MiB | bridge last MiB | wall ms/run | CPU ms/run |`,
    `|---|---:|${SHOWN.map(() => "---:").join("|")}|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const variant of VARIANTS) {
    const rounds = results.get(variant.label)!;
    const { early, late } = windows(variant.runs);
    const med = (pick: (r: ChildResult) => number) => median(rounds.map(pick));
    const at = (n: number) => {
      const found = rounds.map((r) => r.points.find((p) => p.runs === n)?.rssMb).filter((v): v is number => v !== undefined);
      return found.length === 0 ? "–" : median(found).toFixed(0);
    };
    const rss = (r: ChildResult, [from, to]: [number, number], key: keyof Point = "rssMb") => windowMedian(r.points, from, to, key);
    const after100 = (r: ChildResult) => r.points.filter((p) => p.runs >= early[0]).map((p) => p.rssMb);
    lines.push(
      `| ${variant.label} | ${variant.runs} | ${SHOWN.map(at).join(" | ")} | ${med((r) => rss(r, early)).toFixed(0)} → ${med((r) => rss(r, late)).toFixed(0)} (runs ${early.join("–")}, ${late.join("–")}) | ${med((r) => rss(r, late) / rss(r, early)).toFixed(3)} | ${med((r) => Math.min(...after100(r))).toFixed(0)}–${med((r) => Math.max(...after100(r))).toFixed(0)} | ${med((r) => rss(r, early, "heapMb")).toFixed(0)} → ${med((r) => rss(r, late, "heapMb")).toFixed(0)} | ${med((r) => rss(r, early, "externalMb")).toFixed(1)}, ${med((r) => rss(r, early, "arrayBuffersMb")).toFixed(1)} → ${med((r) => rss(r, late, "externalMb")).toFixed(1)}, ${med((r) => rss(r, late, "arrayBuffersMb")).toFixed(1)} | ${med((r) => r.points.at(-1)!.bridgeMb).toFixed(1)} | ${med((r) => r.wallMsPerRun).toFixed(1)} | ${med((r) => r.cpuMsPerRun).toFixed(1)} |`,
    );
  }
  const { early, late } = windows(RUNS);
  lines.push(`target: with the default budget, median RSS of runs ${late.join("–")} ≤ 1.10 × that of runs ${early.join("–")} (its "late / early"); suite time ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return lines;
}

/** One child process: a server with `variant`'s budget, RUNS runs, the measured points as JSON on stdout. */
async function runChild(variant: Variant): Promise<ChildResult> {
  const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "child", String(variant.streamMemoryMb), String(variant.runs)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`memory bench child exited with ${code}: ${out.slice(-500)}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as ChildResult;
}

/** The median of `key` over the readings taken in runs from…to (both included). */
function windowMedian(points: readonly Point[], from: number, to: number, key: keyof Point): number {
  return median(points.filter((p) => p.runs >= from && p.runs <= to).map((p) => p[key]));
}

/** The child: start a server, run RUNS runs, measure at each checkpoint. */
async function child(streamMemoryMb: number, runs: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run the memory bench child with --expose-gc");
  const { resolveServeOptions } = await import("../serve/serve-options.js");
  const { startServer } = await import("../serve/start-server.js");
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-memory-"));
  const scenario = join(dir, "answer.scenario.json");
  writeFileSync(scenario, JSON.stringify({ contract: "scenario", version: 1, name: "answer", stack: "lead", input: "Read this.", agents: { lead: { turns: [{ content: "Read it." }] } } }));
  const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${scenario}`, bash: "off", "stream-memory-mb": String(streamMemoryMb) }, {}, dir);
  const server = await startServer(options, { version: "bench", log: () => undefined, cwd: dir });
  const json = { "content-type": "application/json" };
  const points: Point[] = [];
  const padding = "x".repeat(INPUT_BYTES - 16);
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const at = readingsAt(runs);
    for (let run = 1; run <= runs; run++) {
      const thread = (await (await fetch(`${server.url}/threads`, { method: "POST", headers: json, body: "{}" })).json()) as { thread_id: string };
      const body = JSON.stringify({ assistant_id: "lead", input: { messages: [{ role: "user", content: `run ${String(run).padStart(6, "0")} ${padding}` }] } });
      const answer = await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, { method: "POST", headers: json, body });
      if (answer.status !== 200) throw new Error(`run ${run}: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
      await answer.arrayBuffer();
      if (at.includes(run)) {
        for (let i = 0; i < 4; i++) {
          gc();
          await new Promise((resolve) => setImmediate(resolve));
        }
        const memory = process.memoryUsage();
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        const bridgeBytes = Number(/^keel_stream_bridge_memory_bytes (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN);
        points.push({ runs: run, rssMb: mb(memory.rss), heapMb: mb(memory.heapUsed), externalMb: mb(memory.external), arrayBuffersMb: mb(memory.arrayBuffers), bridgeMb: mb(bridgeBytes) });
      }
    }
    const used = process.cpuUsage(cpu);
    const result: ChildResult = { points, wallMsPerRun: (performance.now() - started) / runs, cpuMsPerRun: (used.user + used.system) / 1000 / runs };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "child") {
  await child(Number(process.argv[3]), Number(process.argv[4]));
  process.exit(0);
}
