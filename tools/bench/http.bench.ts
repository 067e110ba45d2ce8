import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Fastify from "fastify";
import type { RunExecutor } from "../../kernel/runs/executor.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import type { RunRecord, RunStore, StreamBridge } from "../../kernel/runs/types.js";
import { ApiKeys, createGateway, sseFrame } from "../../plugins/gateway/index.js";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import { createRedisStreamBridge } from "../../plugins/stream-redis/index.js";

/** Events per run: within the memory bridge's retention (1,024), so a replay from the start is complete. */
const EVENTS = 1_000;
const ROUNDS = 5;
const ADMISSIONS = 200;
const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const REDIS_URL = process.env.KEEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A payload the size of a typical `updates`/`custom` event (~200 bytes of JSON). */
export const payload = (i: number) => ({ agent: "lead", turn: i, route: "tools", note: "x".repeat(150) });

const never: RunExecutor = {
  execute: async () => {
    throw new Error("the benchmark never executes runs");
  },
  captureRollbackPoint: async () => null,
  getThreadState: async () => ({}),
};

/** How `drain` sends its request, and a callback per complete SSE frame (its text without the blank line). */
export interface DrainOptions {
  method?: "GET" | "POST";
  body?: unknown;
  onFrame?(frame: string): void;
}

/** Read a response to its end; resolves with the number of SSE frames and when the first byte came. */
export async function drain(url: string, headers: Record<string, string> = {}, options: DrainOptions = {}): Promise<{ frames: number; firstByteMs: number; totalMs: number }> {
  const start = performance.now();
  const body = options.body === undefined ? {} : { body: JSON.stringify(options.body) };
  const response = await fetch(url, { method: options.method ?? "GET", headers: options.body === undefined ? headers : { "content-type": "application/json", ...headers }, ...body });
  if (!response.ok) throw new Error(`${options.method ?? "GET"} ${url}: HTTP ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  let firstByteMs = -1;
  let frames = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstByteMs < 0) firstByteMs = performance.now() - start;
    const text = tail + decoder.decode(value, { stream: true });
    const parts = text.split("\n\n");
    tail = parts.pop()!;
    frames += parts.length;
    if (options.onFrame) for (const frame of parts) options.onFrame(frame);
  }
  return { frames, firstByteMs, totalMs: performance.now() - start };
}

function best<T extends { totalMs: number }>(results: T[]): T {
  return results.reduce((a, b) => (b.totalMs < a.totalMs ? b : a));
}

/** A run with EVENTS published events and `end`, on a served gateway; returns its stream URL and ids. */
async function servedRun(bridge: StreamBridge): Promise<{ url: string; ids: string[]; close(): Promise<void> }> {
  const store = new MemoryRunStore();
  const runs = new RunManager({ store, bridge, executor: never, log: () => undefined });
  const now = new Date().toISOString();
  const threadId = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  await store.createThread({ threadId, owner: "local", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  const run: RunRecord = { runId: `${threadId}-run`, threadId, assistantId: "lead", status: "pending", multitaskStrategy: "reject", epoch: 0, createdAt: now, updatedAt: now, user: "local", request: { assistantId: "lead", input: "bench", streamMode: ["updates"] } };
  await store.admitRun(run);
  const ids: string[] = [];
  ids.push((await bridge.publish(run.runId, "metadata", { run_id: run.runId, thread_id: threadId, attempt: 1 })).id);
  for (let i = 1; i < EVENTS - 1; i++) ids.push((await bridge.publish(run.runId, "updates", payload(i))).id);
  ids.push((await bridge.end(run.runId)).id);
  const app = await createGateway({ deps: { runs, store, bridge }, apiKeys: new ApiKeys(), stacks: ["lead"], version: "bench" });
  const base = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url: `${base}/threads/${threadId}/runs/${run.runId}/stream`,
    ids,
    close: async () => {
      await runs.shutdown();
      await app.close();
    },
  };
}

/** The floor: a bare Fastify route writing the same frames straight to the socket. */
async function baselineRoute(): Promise<{ url: string; close(): Promise<void> }> {
  const frames: string[] = [];
  frames.push(sseFrame({ id: "1-0", event: "metadata", data: { run_id: "r", thread_id: "t", attempt: 1 } }));
  for (let i = 1; i < EVENTS - 1; i++) frames.push(sseFrame({ id: `1-${i}`, event: "updates", data: payload(i) }));
  frames.push(sseFrame({ id: `1-${EVENTS - 1}`, event: "end", data: null }));
  const app = Fastify({ forceCloseConnections: true });
  app.get("/sse", (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/event-stream" });
    for (const frame of frames) reply.raw.write(frame);
    reply.raw.end();
  });
  const base = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url: `${base}/sse`, close: () => app.close() };
}

async function measureSse(label: string, bridge: StreamBridge, floorEventsPerSec: number): Promise<string[]> {
  const served = await servedRun(bridge);
  try {
    const fulls = [];
    for (let i = 0; i < ROUNDS; i++) fulls.push(await drain(served.url));
    const full = best(fulls);
    if (full.frames !== EVENTS) throw new Error(`${label}: expected ${EVENTS} frames, got ${full.frames}`);
    const rate = EVENTS / (full.totalMs / 1000);
    const middle = served.ids[Math.floor(EVENTS / 2)]!;
    const replays = [];
    for (let i = 0; i < ROUNDS; i++) replays.push(await drain(served.url, { "last-event-id": middle }));
    const replay = best(replays);
    return [
      `SSE ${label}: ${Math.round(rate).toLocaleString("en-US")} events/s (${EVENTS} events, best of ${ROUNDS}) = ${(rate / floorEventsPerSec).toFixed(2)}× the bare route`,
      `replay ${label} from a mid-stream Last-Event-ID (${replay.frames} events): first byte ${replay.firstByteMs.toFixed(1)} ms, complete ${replay.totalMs.toFixed(1)} ms`,
    ];
  } finally {
    await served.close();
  }
}

async function measureAdmissions(label: string, open: () => Promise<RunStore>): Promise<string> {
  const store = await open();
  try {
    const now = new Date().toISOString();
    const prefix = `bench-adm-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const threads: string[] = [];
    for (let i = 0; i < ADMISSIONS; i++) {
      const threadId = `${prefix}-${i}`;
      await store.createThread({ threadId, owner: "bench", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
      threads.push(threadId);
    }
    const start = performance.now();
    for (const threadId of threads) {
      const result = await store.admitRun({ runId: `${threadId}-r`, threadId, assistantId: "lead", status: "pending", multitaskStrategy: "reject", epoch: 0, createdAt: now, updatedAt: now, user: "bench", request: { assistantId: "lead", input: null } });
      if (!result.ok) throw new Error(`${label}: admission refused on a fresh thread`);
    }
    const ms = performance.now() - start;
    for (const threadId of threads) await store.deleteThread(threadId);
    return `admissions ${label}: ${Math.round(ADMISSIONS / (ms / 1000)).toLocaleString("en-US")}/s (${ADMISSIONS} sequential admitRun transactions, one per thread)`;
  } finally {
    await store.close();
  }
}

async function optional(label: string, run: () => Promise<string[]>): Promise<string[]> {
  try {
    return await run();
  } catch (error) {
    return [`${label}: skipped (${(error as Error).message.split("\n")[0]})`];
  }
}

/**
 * HTTP gateway figures: SSE events/s through the gateway's rejoin route on loopback and
 * the replay time from a mid-stream `Last-Event-ID`, on the memory and Redis bridges,
 * against a bare Fastify route writing the same frames (the floor, measured in the same
 * run); admissions/s on SQLite and PostgreSQL. Redis/PostgreSQL figures are skipped with
 * the reason when the service is not reachable (KEEL_TEST_REDIS_URL, KEEL_TEST_PG_URL).
 */
export async function benchHttp(): Promise<string[]> {
  const lines: string[] = [];
  const baseline = await baselineRoute();
  let floor: number;
  try {
    const results = [];
    for (let i = 0; i < ROUNDS; i++) results.push(await drain(baseline.url));
    floor = EVENTS / (best(results).totalMs / 1000);
    lines.push(`SSE bare Fastify route (floor): ${Math.round(floor).toLocaleString("en-US")} events/s (${EVENTS} events, best of ${ROUNDS})`);
  } finally {
    await baseline.close();
  }
  const memory = new MemoryStreamBridge();
  lines.push(...(await measureSse("memory bridge", memory, floor)));
  await memory.close();
  lines.push(
    ...(await optional("SSE Redis bridge", async () => {
      const redis = createRedisStreamBridge(REDIS_URL, { redis: { maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000 } });
      try {
        return await measureSse("Redis bridge", redis, floor);
      } finally {
        await redis.close();
      }
    })),
  );
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-"));
  try {
    lines.push(await measureAdmissions("SQLite", () => createSqlRunStore(`sqlite:${join(dir, "keel.db")}`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push(...(await optional("admissions PostgreSQL", async () => [await measureAdmissions("PostgreSQL", () => createSqlRunStore(PG_URL))])));
  return lines;
}
