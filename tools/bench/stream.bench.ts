/**
 * Live stream figures: events/s from the run's publish to an SSE client, and the
 * publish→client latency, through a `keel serve`-like gateway (RunManager + gateway,
 * `POST /threads/:tid/runs/stream`) on the Redis bridge (and the memory bridge, for
 * reference), against a bare Fastify SSE route writing the same frames (the floor) and
 * against the LangGraph in-memory API server (`@langchain/langgraph-api`, a child
 * process) streaming the same custom events from a one-node graph.
 *
 * Two loads per variant: a burst (the run emits N events at once: events/s until the
 * client has the last one) and a paced run (PACED_PER_TICK events per millisecond tick,
 * below every variant's capacity: p50/p99 latency of `t`, the publish stamp in the data).
 * Variants are interleaved, ROUNDS times; figures are medians. CPU: this process
 * (`process.cpuUsage()`, it hosts the Keel gateway and the bare route), the LangGraph
 * child and redis-server (/proc/<pid>/stat) and the whole machine (/proc/stat: other
 * load on the machine counts too), per 1,000 burst events.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import type { RunExecutor } from "../../kernel/runs/executor.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import type { StreamBridge } from "../../kernel/runs/types.js";
import { ApiKeys, createGateway, sseFrame } from "../../plugins/gateway/index.js";
import { createRedisStreamBridge } from "../../plugins/stream-redis/index.js";
import { drain, payload } from "./http.bench.js";
import { nowMs } from "./langgraph-graph.js";

const BURST = 5_000;
const PACED = 2_000;
const PACED_PER_TICK = 2;
const ROUNDS = 3;
const REDIS_URL = process.env.KEEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** What the run asks for: `n` events, `perTick` per millisecond (0: all at once). */
interface Load {
  n: number;
  perTick: number;
}

interface Variant {
  label: string;
  /** Start a run emitting `load` and stream it; resolves once the stream ended. */
  stream(load: Load, onFrame: (frame: string) => void): Promise<void>;
  /** Process ids whose CPU counts for this variant besides this process. */
  pids(): number[];
  close(): Promise<void>;
}

interface Sample {
  eventsPerSec: number;
  ownCpuMs: number;
  otherCpuMs: number;
  machineCpuMs: number;
}

/** Emit like the graph does: synchronously, or `perTick` per 1 ms timer tick. */
async function emitLoad(load: Load, emit: (i: number) => void): Promise<void> {
  const perTick = load.perTick > 0 ? load.perTick : load.n;
  for (let i = 0; i < load.n; ) {
    for (const end = Math.min(load.n, i + perTick); i < end; i++) emit(i);
    if (i < load.n) await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const customData = (i: number) => ({ ...payload(i), i, t: nowMs() });

/** The floor: a bare Fastify route that writes each event's frame to the socket as it is "published". */
async function bareRoute(): Promise<Variant> {
  const app = Fastify({ forceCloseConnections: true });
  app.post<{ Body: Load }>("/sse", async (request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/event-stream" });
    await emitLoad(request.body, (i) => reply.raw.write(sseFrame({ id: `1-${i}`, event: "custom", data: customData(i) })));
    reply.raw.end(sseFrame({ id: `1-${request.body.n}`, event: "end", data: null }));
  });
  const base = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    label: "bare Fastify route",
    stream: async (load, onFrame) => void (await drain(`${base}/sse`, {}, { method: "POST", body: load, onFrame })),
    pids: () => [],
    close: () => app.close(),
  };
}

/** A RunManager and the gateway on `bridge`, with an executor that emits the load as `custom` events. */
async function keelGateway(label: string, bridge: StreamBridge, pids: () => number[]): Promise<Variant> {
  const executor: RunExecutor = {
    async execute(run, io) {
      await emitLoad(run.request.input as Load, (i) => io.emit("custom", customData(i)));
      return { outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "" } };
    },
    captureRollbackPoint: async () => null,
    getThreadState: async () => ({}),
  };
  const store = new MemoryRunStore();
  const runs = new RunManager({ store, bridge, executor, log: () => undefined });
  const app = await createGateway({ deps: { runs, store, bridge }, apiKeys: new ApiKeys(), stacks: ["lead"], version: "bench" });
  const base = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    label,
    async stream(load, onFrame) {
      const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
      await drain(`${base}/threads/${thread.thread_id}/runs/stream`, {}, { method: "POST", body: { assistant_id: "lead", input: load, stream_mode: ["custom"] }, onFrame });
    },
    pids,
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The LangGraph in-memory API server in a child process, with the one-node graph of langgraph-graph.ts. */
async function langGraphServer(): Promise<Variant> {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-langgraph-"));
  const port = await freePort();
  const entry = fileURLToPath(new URL("./langgraph-server.js", import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [entry, String(port), dir], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "error", LANGSMITH_TRACING: "false" } });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the LangGraph API server exited (${code}): ${output.trim().split("\n").at(-1) ?? ""}`)));
  });
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    await ready;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    clearTimeout(timeout);
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    label: "LangGraph in-memory API server",
    async stream(load, onFrame) {
      const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
      await drain(`${base}/threads/${thread.thread_id}/runs/stream`, {}, { method: "POST", body: { assistant_id: "bench", input: load, stream_mode: ["custom"] }, onFrame });
    },
    pids: () => (child.pid === undefined ? [] : [child.pid]),
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU ms of a process (utime + stime from /proc/<pid>/stat); 0 when it cannot be read. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
  } catch {
    return 0;
  }
}

/** Busy CPU ms of the whole machine (all cores) from /proc/stat; 0 without /proc. */
function machineCpuMs(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
  } catch {
    return 0;
  }
}

/** The data of a `custom` frame, or undefined for any other frame. */
function customOf(frame: string): { t: number } | undefined {
  if (!frame.startsWith("event: custom\n")) return undefined;
  const line = frame.split("\n").find((l) => l.startsWith("data: "));
  return line ? (JSON.parse(line.slice(6)) as { t: number }) : undefined;
}

async function burst(variant: Variant, otherPids: number[]): Promise<Sample> {
  let received = 0;
  const ownStart = process.cpuUsage();
  const otherStart = otherPids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const machineStart = machineCpuMs();
  const start = performance.now();
  await variant.stream({ n: BURST, perTick: 0 }, (frame) => {
    if (customOf(frame)) received++;
  });
  const ms = performance.now() - start;
  const own = process.cpuUsage(ownStart);
  if (received !== BURST) throw new Error(`${variant.label}: expected ${BURST} custom events, got ${received}`);
  return {
    eventsPerSec: BURST / (ms / 1000),
    ownCpuMs: (own.user + own.system) / 1000,
    otherCpuMs: otherPids.reduce((sum, pid) => sum + processCpuMs(pid), 0) - otherStart,
    machineCpuMs: machineCpuMs() - machineStart,
  };
}

async function paced(variant: Variant): Promise<number[]> {
  const latencies: number[] = [];
  await variant.stream({ n: PACED, perTick: PACED_PER_TICK }, (frame) => {
    const data = customOf(frame);
    if (data) latencies.push(nowMs() - data.t);
  });
  if (latencies.length !== PACED) throw new Error(`${variant.label}: expected ${PACED} custom events, got ${latencies.length}`);
  return latencies;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function redisServerPid(): Promise<number[]> {
  const { Redis } = await import("ioredis");
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true, connectTimeout: 2_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const pid = /process_id:(\d+)/.exec(await client.info("server"))?.[1];
    return pid ? [Number(pid)] : [];
  } finally {
    client.disconnect();
  }
}

async function optionalVariant(make: () => Promise<Variant>, skipped: string[], label: string): Promise<Variant | null> {
  try {
    return await make();
  } catch (error) {
    skipped.push(`${label}: skipped (${(error as Error).message.split("\n")[0]})`);
    return null;
  }
}

export async function benchStream(): Promise<string[]> {
  const skipped: string[] = [];
  const variants: Variant[] = [await bareRoute()];
  const redisPids = await redisServerPid().catch(() => []);
  const redis = await optionalVariant(async () => {
    const bridge = createRedisStreamBridge(REDIS_URL, { redis: { maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000 } });
    await bridge.read("bench-probe"); // fails now when Redis is not reachable
    return keelGateway("Keel gateway, Redis bridge", bridge, () => redisPids);
  }, skipped, "Keel gateway, Redis bridge");
  if (redis) variants.push(redis);
  variants.push(await keelGateway("Keel gateway, memory bridge", new MemoryStreamBridge({ retention: 2 * BURST }), () => []));
  const langGraph = await optionalVariant(langGraphServer, skipped, "LangGraph in-memory API server");
  if (langGraph) variants.push(langGraph);

  const bursts = new Map<Variant, Sample[]>(variants.map((v) => [v, []]));
  const latencies = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  const started = performance.now();
  try {
    // One warm-up of each (JIT, connections, the LangGraph server's first run), not counted.
    for (const variant of variants) await variant.stream({ n: 200, perTick: 0 }, () => undefined);
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) {
        bursts.get(variant)!.push(await burst(variant, variant.pids()));
        latencies.get(variant)!.push(...(await paced(variant)));
      }
    }
  } finally {
    for (const variant of variants) await variant.close();
  }

  const rate = (v: Variant) => median(bursts.get(v)!.map((s) => s.eventsPerSec));
  const floor = rate(variants[0]!);
  const lines = [
    `live SSE, ${BURST} events per burst, paced ${PACED} events at ${PACED_PER_TICK}/ms for latency; medians of ${ROUNDS} interleaved rounds (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    "| variant | events/s | × bare route | × LangGraph | p50 ms | p99 ms | CPU ms / 1k events: this process | server child / redis-server | machine |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const variant of variants) {
    const samples = bursts.get(variant)!;
    const perK = (pick: (s: Sample) => number) => median(samples.map(pick)) / (BURST / 1000);
    const vsLangGraph = langGraph ? (rate(variant) / rate(langGraph)).toFixed(2) : "n/a";
    const l = latencies.get(variant)!;
    lines.push(
      `| ${variant.label} | ${Math.round(rate(variant)).toLocaleString("en-US")} | ${(rate(variant) / floor).toFixed(2)} | ${vsLangGraph} | ${percentile(l, 50).toFixed(1)} | ${percentile(l, 99).toFixed(1)} | ${perK((s) => s.ownCpuMs).toFixed(1)} | ${variant.pids().length > 0 ? perK((s) => s.otherCpuMs).toFixed(1) : "-"} | ${perK((s) => s.machineCpuMs).toFixed(1)} |`,
    );
  }
  return [...lines, ...skipped];
}
