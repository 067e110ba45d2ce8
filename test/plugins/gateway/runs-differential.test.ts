/**
 * The same `client.runs` calls against Keel's gateway and LangGraph's JS Agent Server
 * (`@langchain/langgraph-api` 1.5.1, in a child process: dist/tools/bench/langgraph-server.js
 * with its one-node graph `bench`), answers compared with ids and timestamps masked. Every
 * intended difference is listed in docs/http.md ("Runs API").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../kernel/package-root.js";
import { startRunsApi, type RunsApiHarness } from "./runs-api-harness.js";

const ENTRY = join(packageRoot(), "dist", "tools", "bench", "langgraph-server.js");

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

interface Side {
  name: "keel" | "langgraph";
  client: Client;
  assistant: string;
  input: Record<string, unknown>;
}

/** A Run with what differs by nature (ids, times, the graph's own kwargs) masked; Keel's documented extra `outcome` dropped. */
function shape(run: Record<string, unknown>): Record<string, unknown> {
  const { outcome: _outcome, kwargs: _kwargs, run_id, thread_id, created_at, updated_at, assistant_id, ...rest } = run;
  return { ...rest, run_id: typeof run_id, thread_id: typeof thread_id, created_at: typeof created_at, updated_at: typeof updated_at, assistant_id: typeof assistant_id };
}

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

describe("Runs API: Keel and LangGraph's JS server answer the same SDK calls alike", () => {
  let keel: RunsApiHarness;
  let child: ChildProcess;
  let dir: string;
  let sides: [Side, Side];

  beforeAll(async () => {
    keel = await startRunsApi();
    dir = mkdtempSync(join(tmpdir(), "keel-runs-differential-"));
    const port = await freePort();
    child = spawn(process.execPath, [ENTRY, String(port), dir], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "error", LANGSMITH_TRACING: "false" } });
    let output = "";
    child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      child.once("exit", (code) => reject(new Error(`the LangGraph API server exited (${code}): ${output}`)));
    });
    sides = [
      { name: "keel", client: keel.alice, assistant: "lead", input: { events: 1 } },
      { name: "langgraph", client: new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } }), assistant: "bench", input: { n: 1, perTick: 0 } },
    ];
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(kill);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await keel?.close();
  });

  const both = <T>(call: (side: Side) => Promise<T>) => Promise.all(sides.map(call)) as Promise<[T, T]>;

  it("runs.create(null, …, { onCompletion: keep }): the same Run fields; it then succeeds and runs.get / runs.list show it", async () => {
    const [k, l] = await both((s) => s.client.runs.create(null, s.assistant, { input: s.input, onCompletion: "keep", metadata: { case: "diff" } }));
    expect(Object.keys(shape(k as never)).sort()).toEqual(Object.keys(shape(l as never)).sort());
    expect({ ...shape(k as never), status: "masked", metadata: "masked" }).toEqual({ ...shape(l as never), status: "masked", metadata: "masked" });
    for (const [side, run] of [[sides[0], k], [sides[1], l]] as const) {
      await side.client.runs.join(run.thread_id, run.run_id);
      expect({ side: side.name, status: (await side.client.runs.get(run.thread_id, run.run_id)).status }).toEqual({ side: side.name, status: "success" });
      expect((await side.client.runs.list(run.thread_id, { status: "success" })).map((r) => r.run_id)).toEqual([run.run_id]);
      expect(await side.client.runs.list(run.thread_id, { status: "error" })).toEqual([]);
    }
  });

  it("runs.delete: 204, then runs.get is a 404 on both; an unknown run is a 404 on both", async () => {
    const runs = await both(async (s) => {
      const run = await s.client.runs.create(null, s.assistant, { input: s.input, onCompletion: "keep" });
      await s.client.runs.join(run.thread_id, run.run_id);
      return run;
    });
    const deleted = await both((s) => statusOf(s.client.runs.delete(runs[sides.indexOf(s)]!.thread_id, runs[sides.indexOf(s)]!.run_id)));
    expect(deleted).toEqual([200, 200]);
    expect(await both((s) => statusOf(s.client.runs.get(runs[sides.indexOf(s)]!.thread_id, runs[sides.indexOf(s)]!.run_id)))).toEqual([404, 404]);
    expect(await both((s) => statusOf(s.client.runs.get(runs[sides.indexOf(s)]!.thread_id, randomUUID())))).toEqual([404, 404]);
  });

  it("runs.createBatch: one Run per payload, each on its own thread", async () => {
    const [k, l] = await both((s) =>
      s.client.runs.createBatch([
        { assistantId: s.assistant, input: s.input },
        { assistantId: s.assistant, input: s.input },
      ]),
    );
    for (const batch of [k, l]) {
      expect(batch).toHaveLength(2);
      expect(new Set(batch.map((r) => r.thread_id)).size).toBe(2);
    }
    expect(shape(k[0] as never)).toEqual({ ...shape(l[0] as never), status: shape(k[0] as never).status, metadata: shape(k[0] as never).metadata });
  });

  it("ifNotExists create on a new thread id: the run is on that thread; afterSeconds: the run is pending", async () => {
    const threads = await both(async (s) => {
      const threadId = randomUUID();
      const run = await s.client.runs.create(threadId, s.assistant, { input: s.input, ifNotExists: "create" });
      expect({ side: s.name, thread: run.thread_id }).toEqual({ side: s.name, thread: threadId });
      await s.client.runs.join(threadId, run.run_id);
      return threadId;
    });
    const later = await both((s) => s.client.runs.create(threads[sides.indexOf(s)]!, s.assistant, { input: s.input, afterSeconds: 3600 }));
    expect(later.map((r) => r.status)).toEqual(["pending", "pending"]);
    // A missing thread without ifNotExists: Keel 404; LangGraph's JS server answers 422 (its
    // "Thread is already running a task", a documented difference).
    expect(await both((s) => statusOf(s.client.runs.create(randomUUID(), s.assistant, { input: s.input })))).toEqual([404, 422]);
    // An unknown assistant: 404 on both.
    expect(await both((s) => statusOf(s.client.runs.create(null, "no-such-assistant", { input: s.input })))).toEqual([404, 404]);
  });
});
