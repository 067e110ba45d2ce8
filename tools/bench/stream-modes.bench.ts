/**
 * What a stream mode costs a run: a real `keel serve` (tools/serve, SQLite, the scripted
 * model, in this process on loopback) runs a scripted TURNS-turn run (each turn but the last
 * calls `read_file` on its own file, the last answers in text) streamed to the official
 * `@langchain/langgraph-sdk` client (`client.runs.stream`) with one set of stream modes per
 * variant. Per variant: events/s the client received, wall ms per turn, process CPU ms per
 * turn (server and client share this process), each as a ratio against `messages-tuple`
 * alone (the baseline: what a chat UI needs), measured in the same run. Variants are
 * interleaved, ROUNDS times, medians.
 *
 * The variants are a list of stream-mode sets (MODE_SETS): a new mode is one line. A mode the
 * server refuses (a 400 when probed once before the rounds) is printed as "<label>: not
 * available" and left out.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@langchain/langgraph-sdk";

const TURNS = 50;
const ROUNDS = 7;

/** The variants: the first is the baseline every ratio is against. */
const MODE_SETS: ReadonlyArray<{ label: string; modes: readonly string[] }> = [
  { label: "messages-tuple (baseline)", modes: ["messages-tuple"] },
  { label: "values (after every step)", modes: ["values"] },
  { label: "updates + messages", modes: ["updates", "messages"] },
  { label: "events", modes: ["events"] },
];

interface Sample {
  events: number;
  wallMs: number;
  cpuMs: number;
}

/** A scenario@1 of `turns` lead turns: `read_file` on file i at turn i, then a text answer. */
function scenario(turns: number): Record<string, unknown> {
  const files = Object.fromEntries(Array.from({ length: turns - 1 }, (_, i) => [`notes/${i + 1}.md`, `# Note ${i + 1}\n${"text ".repeat(40)}\n`]));
  const steps = Array.from({ length: turns - 1 }, (_, i) => ({ content: `Reading note ${i + 1}.`, toolCalls: [{ name: "read_file", args: { path: `notes/${i + 1}.md` } }] }));
  return {
    contract: "scenario",
    version: 1,
    name: "bench-stream-modes",
    stack: "lead",
    input: "Read the notes.",
    workspace: { files },
    agents: { lead: { turns: [...steps, { content: `Read ${turns - 1} notes.` }], then: "stop" } },
  };
}

/** One run on a new thread, streamed with `modes`; the events the client got (the `end` the SDK stops at not counted). */
async function streamRun(client: Client, modes: readonly string[]): Promise<Sample> {
  const { thread_id } = await client.threads.create();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let events = 0;
  let failed: unknown;
  for await (const part of client.runs.stream(thread_id, "lead", { input: { messages: [{ role: "user", content: "Read the notes." }] }, streamMode: modes as never })) {
    events++;
    if (part.event === "error") failed = part.data;
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (failed !== undefined) throw new Error(`stream-modes bench: the run failed (${JSON.stringify(failed)})`);
  return { events, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** Does the server accept `modes`? One run (drained, not counted: it is each variant's warm-up); a refusal (400) is "not available". */
async function accepted(url: string, modes: readonly string[]): Promise<boolean> {
  const json = { "content-type": "application/json" };
  const thread = (await (await fetch(`${url}/threads`, { method: "POST", headers: json, body: "{}" })).json()) as { thread_id: string };
  const response = await fetch(`${url}/threads/${thread.thread_id}/runs/stream`, { method: "POST", headers: json, body: JSON.stringify({ assistant_id: "lead", input: { messages: [{ role: "user", content: "probe" }] }, stream_mode: modes }) });
  await response.arrayBuffer();
  return response.status === 200;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

export async function benchStreamModes(): Promise<string[]> {
  const { resolveServeOptions } = await import("../serve/serve-options.js");
  const { startServer } = await import("../serve/start-server.js");
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-stream-modes-"));
  const file = join(dir, "modes.scenario.json");
  writeFileSync(file, JSON.stringify(scenario(TURNS)));
  const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${file}`, bash: "off" }, {}, dir);
  const server = await startServer(options, { version: "bench", log: () => undefined, cwd: dir });
  const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
  const notes: string[] = [];
  const started = performance.now();
  try {
    const variants: Array<(typeof MODE_SETS)[number]> = [];
    for (const set of MODE_SETS) {
      if (await accepted(server.url, set.modes)) variants.push(set);
      else notes.push(`${set.label}: not available (the server refuses stream_mode ${JSON.stringify(set.modes)})`);
    }
    if (variants[0] !== MODE_SETS[0]) throw new Error("stream-modes bench: the baseline's modes are refused");
    const samples = new Map(variants.map((v) => [v, [] as Sample[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) samples.get(variant)!.push(await streamRun(client, variant.modes));
    }
    const figure = (v: (typeof variants)[number], pick: (s: Sample) => number) => median(samples.get(v)!.map(pick));
    const base = variants[0]!;
    const lines = [
      `stream modes through the SDK client, a real keel serve (SQLite, scripted model), ${TURNS}-turn runs (${TURNS - 1} read_file calls); medians of ${ROUNDS} interleaved rounds (${((performance.now() - started) / 1000).toFixed(0)} s); CPU is this process (server and client)`,
      "| stream modes | events / run | events/s | wall ms / turn | × baseline | CPU ms / turn | × baseline |",
      "|---|---|---|---|---|---|---|",
    ];
    for (const v of variants) {
      const wall = figure(v, (s) => s.wallMs / TURNS);
      const cpu = figure(v, (s) => s.cpuMs / TURNS);
      lines.push(`| ${v.label} | ${figure(v, (s) => s.events)} | ${Math.round(figure(v, (s) => s.events / (s.wallMs / 1000))).toLocaleString("en-US")} | ${wall.toFixed(1)} | ${(wall / figure(base, (s) => s.wallMs / TURNS)).toFixed(2)} | ${cpu.toFixed(1)} | ${(cpu / figure(base, (s) => s.cpuMs / TURNS)).toFixed(2)} |`);
    }
    return [...lines, ...notes];
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
