/**
 * LangGraph's metadata stamps at a run's admission (docs/http.md, "Run
 * metadata"; plugins/gateway/run-metadata.ts), through `@langchain/langgraph-sdk` against a
 * gateway on the real run service and agent loop, on memory, SQLite and PostgreSQL (skipped
 * locally with a printed reason when KEEL_TEST_PG_URL does not answer; never under CI=true):
 * the thread gets `graph_id` and `assistant_id`, the run the assistant's, the thread's and the
 * request's metadata; `threads.search({ metadata: { graph_id } })` finds the thread and
 * `assistants.delete(id, { delete_threads: true })` deletes the threads its runs used.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";
import { startThreadsServer, type Backend, type ThreadsServer } from "./threads-api-server.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const pgSkip = await postgresUnavailable(PG_URL);
if (pgSkip !== null) console.warn(`skipping the run metadata stamps on PostgreSQL: ${pgSkip}`);
const BACKENDS: Backend[] = pgSkip === null ? ["memory", "sqlite", "postgres"] : ["memory", "sqlite"];
const input = { messages: [{ role: "user", content: "Write a note." }] };

describe.each(BACKENDS)("run metadata stamps on %s", (backend) => {
  let server: ThreadsServer;
  let alice: Client;
  let bob: Client;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    let pgUrl: string | undefined;
    if (backend === "postgres") {
      const scratch = await scratchDatabase(PG_URL, "keel_run_metadata");
      pgUrl = scratch.url;
      dropDatabase = scratch.drop;
    }
    server = await startThreadsServer(backend, pgUrl);
    ({ alice, bob } = server);
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await dropDatabase?.();
  });

  it("a run stamps graph_id and assistant_id on its thread; the run's metadata is the assistant's, the thread's, then the request's", async () => {
    const thread = await alice.threads.create({ metadata: { suite: "stamps", assistant_id: "stale" } });
    expect(thread.metadata).toEqual({ suite: "stamps", assistant_id: "stale" });
    await alice.runs.wait(thread.thread_id, "lead", { input, metadata: { mine: 1, suite: "request wins" } });
    expect((await alice.threads.get(thread.thread_id)).metadata).toEqual({ suite: "stamps", graph_id: "lead", assistant_id: "lead" });
    const [run] = await alice.runs.list(thread.thread_id);
    expect(run!.metadata).toEqual({ created_by: "system", suite: "request wins", graph_id: "lead", assistant_id: "lead", mine: 1 });
    expect((await alice.threads.search({ metadata: { graph_id: "lead", suite: "stamps" } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect(await bob.threads.count({ metadata: { graph_id: "lead" } })).toBe(0);
  });

  it("a user assistant's runs stamp its id and graph; assistants.delete with delete_threads deletes those threads only", async () => {
    const assistant = await alice.assistants.create({ graphId: "lead", name: "stamper", metadata: { team: "docs" } });
    const used = await alice.threads.create({ metadata: { suite: "delete-threads" } });
    const untouched = await alice.threads.create({ metadata: { suite: "delete-threads" } });
    await alice.runs.wait(used.thread_id, assistant.assistant_id, { input });
    expect((await alice.threads.get(used.thread_id)).metadata).toEqual({ suite: "delete-threads", graph_id: "lead", assistant_id: assistant.assistant_id });
    const [run] = await alice.runs.list(used.thread_id);
    expect(run!.metadata).toEqual({ team: "docs", suite: "delete-threads", graph_id: "lead", assistant_id: assistant.assistant_id });
    // A threadless run's new thread starts with the stamps; its run holds no thread metadata (as LangGraph's).
    let created: { run_id: string; thread_id?: string } | undefined;
    await alice.runs.wait(null, assistant.assistant_id, { input, onCompletion: "keep", metadata: { via: "threadless" }, onRunCreated: (meta) => (created = meta) });
    expect((await alice.threads.get(created!.thread_id!)).metadata).toEqual({ graph_id: "lead", assistant_id: assistant.assistant_id, via: "threadless" });
    expect((await alice.runs.get(created!.thread_id!, created!.run_id)).metadata).toEqual({ team: "docs", via: "threadless" });

    await alice.assistants.delete(assistant.assistant_id, { deleteThreads: true });
    for (const threadId of [used.thread_id, created!.thread_id!]) await expect(alice.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
    expect((await alice.threads.get(untouched.thread_id)).metadata).toEqual({ suite: "delete-threads" });
  });

  it("a run queued behind a busy thread's run stamps nothing (as LangGraph's)", async () => {
    const assistant = await alice.assistants.create({ graphId: "lead", name: "queued" });
    const thread = await alice.threads.create();
    server.hold(thread.thread_id);
    const first = await alice.runs.create(thread.thread_id, "lead", { input });
    try {
      await alice.runs.create(thread.thread_id, assistant.assistant_id, { input, multitaskStrategy: "enqueue" });
      expect((await alice.threads.get(thread.thread_id)).metadata).toEqual({ graph_id: "lead", assistant_id: "lead" });
    } finally {
      server.release(thread.thread_id);
    }
    await alice.runs.join(thread.thread_id, first.run_id);
    const runs = await alice.runs.list(thread.thread_id);
    expect(runs.map((r) => r.metadata.assistant_id)).toEqual(["lead", "lead"]);
    for (const r of runs) await alice.runs.join(thread.thread_id, r.run_id);
  });
});
