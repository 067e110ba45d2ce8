/**
 * Every public method of `@langchain/langgraph-sdk`'s `assistants`, `threads`, `runs`, `store`
 * and `crons` clients against TWO `keel serve` worker processes sharing one PostgreSQL (a
 * scratch database) and one Redis, the calls alternating between the workers: what one
 * worker made is read, streamed, cancelled and deleted through the other (a thread created on
 * worker A is read on B, a run started on A is joined and its stream followed on B, a cron
 * created on A fires on whichever worker claims its tick — exactly once).
 *
 * The method list is read from the SDK client's prototypes, so a method a newer SDK adds
 * fails here until it gets a case. The v2 thread protocol (`threads.stream`,
 * `threads.joinStream`) is Keel's documented 501. Skipped with a printed reason when
 * PostgreSQL or Redis is unreachable locally; a failure under CI=true.
 */
import { createRequire } from "node:module";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkMethods } from "../sdk-methods.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { PG_URL, REDIS_URL, servicesUnavailable } from "./services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

const unavailable = await servicesUnavailable();
if (unavailable !== null) console.warn(`skipping the SDK suite on two workers: ${unavailable}`);

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rowCount: number | null }>;
  end(): Promise<void>;
}
const { Client: PgClientClass } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

const METHODS = sdkMethods();

const input = { messages: [{ role: "user", content: "Write a note." }] };
const contents = (values: unknown) => ((values as { messages?: { content: unknown }[] }).messages ?? []).map((m) => m.content);
type Values = { messages: { content: string }[]; outcome: { status: string } };

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function status(call: Promise<unknown> | (() => Promise<unknown>)): Promise<number> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    const code = (error as { status?: number }).status;
    if (typeof code === "number") return code;
    throw error;
  }
  return 200;
}

describe.skipIf(unavailable !== null)("every SDK method on two keel serve workers (PostgreSQL + Redis)", () => {
  // A user of its own per test run: the per-user run limit counts every thread of a user.
  const user = `sdk2-${process.pid}-${Date.now()}`;
  let dir: string;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let workers: ServeProcess[] = [];
  /** Worker A and worker B, as clients of one user; `other` is another user on worker B. */
  let A: Client;
  let B: Client;
  let other: Client;
  /** A thread with one finished run, made on worker A. */
  let done: { threadId: string; runId: string };

  const hold = (threadId: string) => {
    mkdirSync(join(dir, "workspaces", threadId), { recursive: true });
    writeFileSync(join(dir, "workspaces", threadId, "hold"), "");
  };
  const release = (threadId: string) => rmSync(join(dir, "workspaces", threadId, "hold"), { force: true });
  /** A run started on `on` that waits in its first bash call until `release`. */
  async function heldRun(on: Client, metadata: Record<string, unknown> = {}) {
    const thread = await on.threads.create({ metadata });
    hold(thread.thread_id);
    const run = await on.runs.create(thread.thread_id, "lead", { input });
    await until(async () => (await on.runs.get(thread.thread_id, run.run_id)).status === "running", "the held run to start");
    return { threadId: thread.thread_id, runId: run.run_id };
  }

  beforeAll(async () => {
    dir = tempDir("keel-e2e-sdk2-");
    database = await scratchDatabase(PG_URL, "keel_e2e_sdk2");
    const common = ["--port", "0", "--db", database.url, "--redis", REDIS_URL, "--workspaces", join(dir, "workspaces"), "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`];
    const env = { KEEL_API_KEYS: `key-sdk2:${user},key-other:${user}-other` };
    // One after the other: each runs the schema migrations at start.
    workers = [await startServe(common, { cwd: dir, env })];
    workers.push(await startServe(common, { cwd: dir, env }));
    const client = (worker: ServeProcess, apiKey: string) => new Client({ apiUrl: worker.url, apiKey, callerOptions: { maxRetries: 0 } });
    A = client(workers[0]!, "key-sdk2");
    B = client(workers[1]!, "key-sdk2");
    other = client(workers[1]!, "key-other");
    const thread = await A.threads.create({ metadata: { suite: "sdk2" } });
    let runId = "";
    const values = (await A.runs.wait(thread.thread_id, "lead", { input, onRunCreated: (meta) => void (runId = meta.run_id) })) as Values;
    expect(values.outcome.status).toBe("succeeded");
    done = { threadId: thread.thread_id, runId };
  }, 60_000);

  afterAll(async () => {
    const exits = await Promise.all(workers.map((worker) => worker.stop("SIGTERM")));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    for (const exit of exits) expect(exit.code).toBe(0);
  });

  const CASES: Record<string, () => Promise<void>> = {
    // --- assistants: created on A, read and changed on B
    "assistants.create": async () => {
      const made = await A.assistants.create({ graphId: "lead", name: "sdk2 writer", metadata: { suite: "sdk2" }, context: { maxTurns: 7 } });
      expect(made).toMatchObject({ graph_id: "lead", name: "sdk2 writer", version: 1, metadata: { suite: "sdk2" } });
      expect(await B.assistants.get(made.assistant_id)).toMatchObject({ assistant_id: made.assistant_id, name: "sdk2 writer" });
      expect(await status(other.assistants.get(made.assistant_id))).toBe(404);
    },
    "assistants.get": async () => {
      expect(await B.assistants.get("lead")).toMatchObject({ assistant_id: "lead", graph_id: "lead", metadata: { created_by: "system" } });
    },
    "assistants.update": async () => {
      const made = await A.assistants.create({ graphId: "lead", name: "v1", metadata: { suite: "sdk2-update", a: 1 } });
      const updated = await B.assistants.update(made.assistant_id, { name: "v2", metadata: { b: 2 } });
      expect(updated).toMatchObject({ name: "v2", version: 2, metadata: { suite: "sdk2-update", a: 1, b: 2 } });
      expect((await A.assistants.get(made.assistant_id)).name).toBe("v2");
    },
    "assistants.getVersions": async () => {
      const made = await A.assistants.create({ graphId: "lead", name: "one" });
      await A.assistants.update(made.assistant_id, { name: "two" });
      expect((await B.assistants.getVersions(made.assistant_id)).map((v) => [v.version, v.name])).toEqual([[2, "two"], [1, "one"]]);
    },
    "assistants.setLatest": async () => {
      const made = await A.assistants.create({ graphId: "lead", name: "first" });
      await B.assistants.update(made.assistant_id, { name: "second" });
      expect(await A.assistants.setLatest(made.assistant_id, 1)).toMatchObject({ version: 1, name: "first" });
      expect((await B.assistants.get(made.assistant_id)).name).toBe("first");
    },
    "assistants.search": async () => {
      await A.assistants.create({ graphId: "lead", name: "Findable Alpha", metadata: { suite: "sdk2-search" } });
      await A.assistants.create({ graphId: "lead", name: "findable beta", metadata: { suite: "sdk2-search" } });
      const found = await B.assistants.search({ metadata: { suite: "sdk2-search" }, name: "FINDABLE", sortBy: "name", sortOrder: "asc" });
      expect(found.map((a) => a.name)).toEqual(["Findable Alpha", "findable beta"]);
      expect(await B.assistants.search({ metadata: { suite: "sdk2-search" }, limit: 1, offset: 1, sortBy: "name", sortOrder: "asc" })).toMatchObject([{ name: "findable beta" }]);
      expect(await other.assistants.search({ metadata: { suite: "sdk2-search" } })).toEqual([]);
    },
    "assistants.count": async () => {
      await A.assistants.create({ graphId: "lead", name: "counted", metadata: { suite: "sdk2-count" } });
      expect(await B.assistants.count({ metadata: { suite: "sdk2-count" } })).toBe(1);
      expect(await B.assistants.count({ graphId: "lead", metadata: { suite: "sdk2-count" } })).toBe(1);
      expect(await other.assistants.count({ metadata: { suite: "sdk2-count" } })).toBe(0);
    },
    "assistants.getGraph": async () => {
      const graph = await B.assistants.getGraph("lead");
      expect(graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["__start__", "agent", "tools", "__end__"]));
      expect(graph.edges.length).toBeGreaterThan(0);
    },
    "assistants.getSchemas": async () => {
      const schemas = await A.assistants.getSchemas("lead");
      expect(schemas.graph_id).toBe("lead");
      expect(schemas.config_schema).toBeTypeOf("object");
      expect(schemas.state_schema).toBeTypeOf("object");
    },
    "assistants.getSubgraphs": async () => {
      expect(await B.assistants.getSubgraphs("lead")).toBeTypeOf("object");
    },
    "assistants.delete": async () => {
      // delete_threads finds the threads the assistant's runs used (the run stamps assistant_id on its thread).
      const made = await A.assistants.create({ graphId: "lead", name: "to delete" });
      const thread = await A.threads.create({ metadata: { suite: "sdk2-delete" } });
      const values = (await B.runs.wait(thread.thread_id, made.assistant_id, { input })) as Values;
      expect(values.outcome.status).toBe("succeeded");
      expect((await A.threads.get(thread.thread_id)).metadata).toMatchObject({ graph_id: "lead", assistant_id: made.assistant_id });
      await B.assistants.delete(made.assistant_id, { deleteThreads: true });
      expect(await status(A.assistants.get(made.assistant_id))).toBe(404);
      expect(await status(A.threads.get(thread.thread_id))).toBe(404);
    },

    // --- threads
    "threads.create": async () => {
      const made = await A.threads.create({ metadata: { suite: "sdk2-create" } });
      expect(made).toMatchObject({ status: "idle", metadata: { suite: "sdk2-create" } });
      expect(await status(B.threads.create({ threadId: made.thread_id }))).toBe(409);
      expect(await B.threads.create({ threadId: made.thread_id, ifExists: "do_nothing" })).toMatchObject({ thread_id: made.thread_id });
    },
    "threads.get": async () => {
      const thread = await B.threads.get(done.threadId);
      expect(thread).toMatchObject({ thread_id: done.threadId, status: "idle", metadata: { suite: "sdk2", graph_id: "lead", assistant_id: "lead" } });
      expect(contents(thread.values).at(-1)).toBe("Done: note.md written.");
      expect(await status(other.threads.get(done.threadId))).toBe(404);
    },
    "threads.update": async () => {
      const made = await A.threads.create({ metadata: { a: 1 } });
      expect((await B.threads.update(made.thread_id, { metadata: { b: 2 } })).metadata).toEqual({ a: 1, b: 2 });
      expect((await A.threads.get(made.thread_id)).metadata).toEqual({ a: 1, b: 2 });
    },
    "threads.delete": async () => {
      const made = await A.threads.create();
      await B.threads.delete(made.thread_id);
      expect(await status(A.threads.get(made.thread_id))).toBe(404);
    },
    "threads.search": async () => {
      const found = await B.threads.search({ metadata: { graph_id: "lead", suite: "sdk2" } });
      expect(found.map((t) => t.thread_id)).toEqual([done.threadId]);
      expect(await B.threads.search({ status: "idle", metadata: { suite: "sdk2" }, limit: 1, select: ["thread_id", "status"] })).toEqual([{ thread_id: done.threadId, status: "idle" }]);
      expect(await status(B.threads.search({ limit: 0 }))).toBe(400);
    },
    "threads.count": async () => {
      expect(await A.threads.count({ metadata: { suite: "sdk2" } })).toBe(1);
      expect(await other.threads.count({ metadata: { suite: "sdk2" } })).toBe(0);
    },
    "threads.copy": async () => {
      const copy = await B.threads.copy(done.threadId);
      expect(copy.thread_id).not.toBe(done.threadId);
      expect(contents((await A.threads.getState(copy.thread_id)).values)).toEqual(contents((await A.threads.getState(done.threadId)).values));
      expect((await A.threads.getHistory(copy.thread_id, { limit: 100 })).length).toBe((await B.threads.getHistory(done.threadId, { limit: 100 })).length);
      expect((await A.threads.get(copy.thread_id)).metadata).toMatchObject({ suite: "sdk2" });
      await A.threads.delete(copy.thread_id);
    },
    "threads.prune": async () => {
      const copy = await A.threads.copy(done.threadId);
      expect(await B.threads.prune([copy.thread_id], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      expect(await A.threads.getHistory(copy.thread_id, { limit: 100 })).toHaveLength(1);
      expect(await other.threads.prune([copy.thread_id])).toEqual({ pruned_count: 0 });
      expect(await A.threads.prune([copy.thread_id])).toEqual({ pruned_count: 1 });
      expect(await status(B.threads.get(copy.thread_id))).toBe(404);
    },
    "threads.getState": async () => {
      const state = await B.threads.getState(done.threadId);
      expect(state.checkpoint.thread_id).toBe(done.threadId);
      expect(state.next).toEqual([]);
      const [, older] = await A.threads.getHistory(done.threadId, { limit: 2 });
      const earlier = await B.threads.getState(done.threadId, older!.checkpoint.checkpoint_id!);
      expect(earlier.checkpoint.checkpoint_id).toBe(older!.checkpoint.checkpoint_id);
    },
    "threads.updateState": async () => {
      const thread = await A.threads.create();
      const written = await B.threads.updateState(thread.thread_id, { values: { messages: [{ type: "human", content: "edited on B" }] }, asNode: "agent" });
      const state = await A.threads.getState(thread.thread_id);
      expect(state.checkpoint.checkpoint_id).toBe(written.checkpoint.checkpoint_id);
      expect(contents(state.values)).toEqual(["edited on B"]);
      expect(await status(A.threads.updateState(thread.thread_id, { values: { receipts: [] }, asNode: "tools" }))).toBe(400);
    },
    "threads.patchState": async () => {
      const thread = await A.threads.create({ metadata: { a: 1 } });
      await B.threads.patchState(thread.thread_id, { b: 2 });
      expect((await A.threads.get(thread.thread_id)).metadata).toEqual({ a: 1, b: 2 });
    },
    "threads.getHistory": async () => {
      const history = await A.threads.getHistory(done.threadId, { limit: 100 });
      expect(history.length).toBeGreaterThan(2);
      expect(contents(history[0]!.values).at(-1)).toBe("Done: note.md written.");
      const inputs = await B.threads.getHistory(done.threadId, { metadata: { source: "input" } });
      expect(inputs.length).toBeGreaterThan(0);
      for (const state of inputs) expect(state.metadata).toMatchObject({ source: "input" });
      expect(await B.threads.getHistory(done.threadId, { limit: 1, before: history[0]!.checkpoint.checkpoint_id! })).toMatchObject([{ checkpoint: { checkpoint_id: history[1]!.checkpoint.checkpoint_id } }]);
    },
    "threads.joinStream": async () => {
      // The SDK's v2 thread protocol: 501 KEEL_ERR_HTTP_NOT_IMPLEMENTED on either worker (documented).
      const joined = (async () => {
        for await (const _ of B.threads.joinStream(done.threadId)) void _;
      })();
      await expect(joined).rejects.toMatchObject({ status: 501 });
    },
    "threads.stream": async () => {
      const stream = A.threads.stream(done.threadId, { assistantId: "lead", maxReconnectAttempts: 0 } as never) as unknown as { submitRun(params: unknown): Promise<unknown>; close(): Promise<void> };
      try {
        await expect(stream.submitRun({ input })).rejects.toMatchObject({ status: 501 });
      } finally {
        await stream.close().catch(() => undefined);
      }
    },

    // --- runs
    "runs.create": async () => {
      const thread = await A.threads.create();
      const run = await A.runs.create(thread.thread_id, "lead", { input, metadata: { via: "A" } });
      expect(run).toMatchObject({ thread_id: thread.thread_id, assistant_id: "lead" });
      const values = (await B.runs.join(thread.thread_id, run.run_id)) as Values;
      expect(values.outcome.status).toBe("succeeded");
      expect(await B.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: "success", metadata: { via: "A", graph_id: "lead", created_by: "system" } });
    },
    "runs.get": async () => {
      expect(await B.runs.get(done.threadId, done.runId)).toMatchObject({ run_id: done.runId, thread_id: done.threadId, status: "success", outcome: { status: "succeeded" } });
      expect(await status(other.runs.get(done.threadId, done.runId))).toBe(404);
    },
    "runs.list": async () => {
      expect((await B.runs.list(done.threadId)).map((r) => r.run_id)).toEqual([done.runId]);
      expect(await B.runs.list(done.threadId, { status: "success", limit: 0 })).toEqual([]);
      expect((await A.runs.list(done.threadId, { status: "success" })).map((r) => r.status)).toEqual(["success"]);
    },
    "runs.wait": async () => {
      // Threadless: a temporary thread, kept here.
      let created: { run_id: string; thread_id?: string } | undefined;
      const values = (await B.runs.wait(null, "lead", { input, onCompletion: "keep", onRunCreated: (meta) => void (created = meta) })) as Values;
      expect(values.outcome.status).toBe("succeeded");
      expect(values.messages.at(-1)!.content).toBe("Done: note.md written.");
      expect((await A.threads.get(created!.thread_id!)).metadata).toMatchObject({ graph_id: "lead", assistant_id: "lead" });
    },
    "runs.join": async () => {
      const held = await heldRun(A);
      const joined = B.runs.join(held.threadId, held.runId) as Promise<Values>;
      release(held.threadId);
      expect((await joined).outcome.status).toBe("succeeded");
    },
    "runs.stream": async () => {
      const thread = await B.threads.create();
      const events: string[] = [];
      let last: unknown;
      for await (const part of B.runs.stream(thread.thread_id, "lead", { input, streamMode: ["values", "updates"] })) {
        events.push(part.event);
        if (part.event === "values") last = part.data;
      }
      expect(events[0]).toBe("metadata");
      expect(events).toContain("updates");
      expect(events.at(-1)).toBe("end");
      expect(contents(last).at(-1)).toBe("Done: note.md written.");
    },
    "runs.joinStream": async () => {
      // Started on A, its stream followed on B (the Redis bridge), from the start to `end`.
      const held = await heldRun(A);
      const events: string[] = [];
      const follow = (async () => {
        for await (const part of B.runs.joinStream(held.threadId, held.runId, { streamMode: ["values"] })) events.push(part.event);
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      release(held.threadId);
      await follow;
      expect(events).toContain("values");
      expect(events.at(-1)).toBe("end");
      expect((await A.runs.get(held.threadId, held.runId)).status).toBe("success");
    },
    "runs.cancel": async () => {
      // Running on A, cancelled through B.
      const held = await heldRun(A);
      await B.runs.cancel(held.threadId, held.runId, true);
      release(held.threadId);
      const run = await until(async () => {
        const found = await A.runs.get(held.threadId, held.runId);
        return found.status !== "running" && found.status !== "pending" ? found : undefined;
      }, "the cancelled run to end");
      expect(run.status).toBe("interrupted");
      expect((await B.threads.get(held.threadId)).status).toBe("idle");
    },
    "runs.cancelMany": async () => {
      const thread = await A.threads.create();
      const later = await A.runs.create(thread.thread_id, "lead", { input, afterSeconds: 3600 });
      expect(later.status).toBe("pending");
      await B.runs.cancelMany({ threadId: thread.thread_id, runIds: [later.run_id] });
      expect((await A.runs.get(thread.thread_id, later.run_id)).status).toBe("interrupted");
    },
    "runs.createBatch": async () => {
      const batch = await A.runs.createBatch([{ assistantId: "lead", input, on_completion: "keep" } as never, { assistantId: "lead", input, on_completion: "keep" } as never]);
      expect(batch).toHaveLength(2);
      for (const run of batch) expect(((await B.runs.join(run.thread_id, run.run_id)) as Values).outcome.status).toBe("succeeded");
    },
    "runs.delete": async () => {
      const thread = await A.threads.create();
      let runId = "";
      await A.runs.wait(thread.thread_id, "lead", { input, onRunCreated: (meta) => void (runId = meta.run_id) });
      await B.runs.delete(thread.thread_id, runId);
      expect(await status(A.runs.get(thread.thread_id, runId))).toBe(404);
      expect(await A.runs.list(thread.thread_id)).toEqual([]);
    },

    // --- store: written on A, read on B
    "store.putItem": async () => {
      await A.store.putItem(["sdk2", "put"], "k", { v: 1 }, { ttl: 60 });
      expect(await B.store.getItem(["sdk2", "put"], "k")).toMatchObject({ namespace: ["sdk2", "put"], key: "k", value: { v: 1 } });
      expect(await other.store.getItem(["sdk2", "put"], "k")).toBeNull();
    },
    "store.getItem": async () => {
      await B.store.putItem(["sdk2", "get"], "k", { v: "b" });
      expect((await A.store.getItem(["sdk2", "get"], "k", { refreshTtl: false }))?.value).toEqual({ v: "b" });
      expect(await A.store.getItem(["sdk2", "get"], "missing")).toBeNull();
    },
    "store.deleteItem": async () => {
      await A.store.putItem(["sdk2", "delete"], "k", { v: 1 });
      await B.store.deleteItem(["sdk2", "delete"], "k");
      expect(await A.store.getItem(["sdk2", "delete"], "k")).toBeNull();
    },
    "store.searchItems": async () => {
      await A.store.putItem(["sdk2", "search"], "a", { n: 1 });
      await A.store.putItem(["sdk2", "search"], "b", { n: 2 });
      expect((await B.store.searchItems(["sdk2", "search"], { filter: { n: { $gt: 1 } } })).items.map((i) => i.key)).toEqual(["b"]);
      expect((await B.store.searchItems(["sdk2", "search"])).items).toHaveLength(2);
      expect(await B.store.searchItems(["sdk2", "search"], { limit: 0 })).toEqual({ items: [] });
    },
    "store.listNamespaces": async () => {
      await A.store.putItem(["sdk2-ns", "x"], "k", { v: 1 });
      await A.store.putItem(["sdk2-ns", "y"], "k", { v: 1 });
      expect(await B.store.listNamespaces({ prefix: ["sdk2-ns"] })).toEqual({ namespaces: [["sdk2-ns", "x"], ["sdk2-ns", "y"]] });
      expect(await B.store.listNamespaces({ prefix: ["sdk2-ns"], maxDepth: 1 })).toEqual({ namespaces: [["sdk2-ns"]] });
    },

    // --- crons: made on A, fired by whichever worker claims the tick (exactly once), managed on B
    "crons.createForThread": async () => {
      const thread = await A.threads.create();
      // A yearly schedule: the tick made due below is the only one within the test (an every-minute
      // schedule fires again legitimately when the test runs across a minute boundary).
      const cron = await A.crons.createForThread(thread.thread_id, "lead", { schedule: "0 0 1 1 *", input, enabled: false, metadata: { suite: "sdk2-cron" } });
      expect(cron).toMatchObject({ thread_id: thread.thread_id, assistant_id: "lead", enabled: false });
      // Its tick made due in the database, as if a minute had passed: one of the two workers fires it, once.
      const pg = new PgClientClass({ connectionString: database!.url });
      await pg.connect();
      try {
        const updated = await pg.query("update keel_crons set enabled = 1, next_run_at = $1 where cron_id = $2", [new Date(Date.now() - 60_000).toISOString(), cron.cron_id]);
        expect(updated.rowCount).toBe(1);
      } finally {
        await pg.end();
      }
      const [run] = await until(async () => {
        const runs = await B.runs.list(thread.thread_id);
        return runs.length > 0 ? runs : undefined;
      }, "the cron's tick to fire");
      expect(((await A.runs.join(thread.thread_id, run!.run_id)) as Values).outcome.status).toBe("succeeded");
      expect(run!.metadata).toMatchObject({ cron_id: cron.cron_id });
      // Both workers poll every second: a second fire of that tick would be here by now.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await A.runs.list(thread.thread_id)).toHaveLength(1);
      const next = (await B.crons.search({ thread_id: thread.thread_id } as never))[0]!;
      expect(Date.parse(next.next_run_date!)).toBeGreaterThan(Date.now() - 1_000);
      await B.crons.delete(cron.cron_id);
    },
    "crons.create": async () => {
      const cron = await A.crons.create("lead", { schedule: "0 0 1 1 *", input, metadata: { suite: "sdk2-cron-create" } });
      expect(cron).toMatchObject({ thread_id: null, assistant_id: "lead", schedule: "0 0 1 1 *", enabled: true });
      expect((await B.crons.search({ metadata: { suite: "sdk2-cron-create" } } as never)).map((c) => c.cron_id)).toEqual([cron.cron_id]);
      await A.crons.delete(cron.cron_id);
    },
    "crons.update": async () => {
      const cron = await A.crons.create("lead", { schedule: "0 0 1 1 *", input, metadata: { a: 1 } });
      const updated = await B.crons.update(cron.cron_id, { schedule: "0 12 * * *", enabled: false, metadata: { b: 2 } });
      expect(updated).toMatchObject({ cron_id: cron.cron_id, schedule: "0 12 * * *", enabled: false, metadata: { a: 1, b: 2 } });
      expect((await A.crons.search({ metadata: { b: 2 } } as never))[0]).toMatchObject({ schedule: "0 12 * * *" });
      await A.crons.delete(cron.cron_id);
    },
    "crons.delete": async () => {
      const cron = await A.crons.create("lead", { schedule: "0 0 1 1 *", input, metadata: { suite: "sdk2-cron-delete" } });
      expect(await status(other.crons.delete(cron.cron_id))).toBe(404);
      await B.crons.delete(cron.cron_id);
      expect(await A.crons.count({ metadata: { suite: "sdk2-cron-delete" } } as never)).toBe(0);
    },
    "crons.search": async () => {
      const made = [await A.crons.create("lead", { schedule: "0 0 1 1 *", input, metadata: { suite: "sdk2-cron-search" } }), await B.crons.create("lead", { schedule: "0 0 2 1 *", input, metadata: { suite: "sdk2-cron-search" } })];
      const found = await A.crons.search({ metadata: { suite: "sdk2-cron-search" }, sortBy: "created_at", sortOrder: "asc" } as never);
      expect(found.map((c) => c.cron_id)).toEqual(made.map((c) => c.cron_id));
      expect(await status(B.crons.search({ limit: 0 }))).toBe(400);
      for (const cron of made) await B.crons.delete(cron.cron_id);
    },
    "crons.count": async () => {
      const cron = await B.crons.create("lead", { schedule: "0 0 1 1 *", input, metadata: { suite: "sdk2-cron-count" } });
      expect(await A.crons.count({ metadata: { suite: "sdk2-cron-count" } } as never)).toBe(1);
      expect(await other.crons.count({ metadata: { suite: "sdk2-cron-count" } } as never)).toBe(0);
      await A.crons.delete(cron.cron_id);
    },
  };

  it("has a case for every method and no case for a method the SDK lacks", () => {
    expect(METHODS.length).toBeGreaterThanOrEqual(47);
    expect(Object.keys(CASES).filter((name) => !METHODS.includes(name))).toEqual([]);
  });

  it.each(METHODS)("%s", async (method) => {
    const run = CASES[method];
    if (!run) throw new Error(`no case for the SDK method ${method}: add one to CASES`);
    await run();
  });
});
