/**
 * A run from an earlier checkpoint (`checkpoint_id` / `checkpoint`: a fork) through the SDK,
 * on a real kernel runtime with a checkpointer (docs/http.md, "Runs API").
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../../kernel/runs/runtime-executor.js";
import { ApiKeys, createGateway, createThreadCheckpoints, type GatewayApp } from "../../../plugins/gateway/index.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import { closeCheckpointer, createCheckpointer, createSqlRunStore } from "../../../plugins/store-sql/index.js";
import { ScriptedChatModel } from "../../../tools/testing/scripted-model.js";
import { postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";
import { sdkError } from "./runs-api-harness.js";

interface Backend {
  checkpointer: BaseCheckpointSaver;
  store: RunStore;
  dispose(): Promise<void>;
}

const echo = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: () => "echo" }],
});

function describeFork(name: string, open: () => Promise<Backend>): void {
describe(`runs from an earlier checkpoint (a fork) through the SDK: ${name}`, () => {
  let checkpointer: BaseCheckpointSaver;
  let backend: Backend;
  let app: GatewayApp;
  let manager: RunManager;
  let alice: Client;

  beforeAll(async () => {
    backend = await open();
    checkpointer = backend.checkpointer;
    const store = backend.store;
    const bridge = new MemoryStreamBridge();
    // One answer per run, in turn: "one", "two", "three", …
    const model = new ScriptedChatModel({ script: { turns: ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"].map((content) => ({ content })) } });
    const composition = compose({ name: "lead", plugins: [echo] });
    const runtime = createAgentRuntime(composition, { model, checkpointer });
    manager = new RunManager({ store, bridge, executor: createRuntimeExecutor({ runtime, checkpointer }), log: () => undefined });
    manager.start();
    const threadState = createThreadCheckpoints({ checkpointer, compositions: new Map([["lead", composition]]) });
    app = await createGateway({ deps: { runs: manager, store, bridge, threadState }, apiKeys: new ApiKeys([["key-alice", "alice"]]), stacks: ["lead"], version: "test" });
    await app.listen({ host: "127.0.0.1", port: 0 });
    alice = new Client({ apiUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
  });
  afterAll(async () => {
    await manager?.shutdown();
    await app?.close();
    await backend?.dispose();
  });

  const texts = (values: unknown) => ((values as { messages: { content: string }[] }).messages ?? []).map((m) => m.content);
  const head = async (threadId: string) => (await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))!.checkpoint.id;
  const say = (content: string) => ({ messages: [{ role: "user", content }] });

  it("checkpointId: the run continues from that checkpoint's values; the later history stays; kwargs.checkpoint_id names it", async () => {
    const thread = await alice.threads.create();
    expect(texts(await alice.runs.wait(thread.thread_id, "lead", { input: say("first") }))).toEqual(["first", "one"]);
    const afterFirst = await head(thread.thread_id);
    expect(texts(await alice.runs.wait(thread.thread_id, "lead", { input: say("second") }))).toEqual(["first", "one", "second", "two"]);
    const afterSecond = await head(thread.thread_id);

    const forked = await alice.runs.create(thread.thread_id, "lead", { input: say("third"), checkpointId: afterFirst });
    expect((forked.kwargs as { checkpoint_id?: string }).checkpoint_id).toBe(afterFirst);
    expect(texts(await alice.runs.join(thread.thread_id, forked.run_id))).toEqual(["first", "one", "third", "three"]);
    expect(texts((await alice.threads.getState(thread.thread_id)).values)).toEqual(["first", "one", "third", "three"]);
    // The second run's checkpoint is still in the history.
    const second = await checkpointer.getTuple({ configurable: { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: afterSecond } });
    expect(texts(second!.checkpoint.channel_values)).toEqual(["first", "one", "second", "two"]);

    // LangGraph's `checkpoint` object names it too.
    const again = await alice.runs.wait(thread.thread_id, "lead", { input: say("fourth"), checkpoint: { checkpoint_id: afterFirst, checkpoint_ns: "", thread_id: thread.thread_id } as never });
    expect(texts(again)).toEqual(["first", "one", "fourth", "four"]);
  });

  it("a stack without a workspace: a fork (a run from checkpoint_id, an update at an old checkpoint) says nothing about files", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: say("first") });
    const afterFirst = await head(thread.thread_id);
    await alice.runs.wait(thread.thread_id, "lead", { input: say("second") });
    await alice.runs.wait(thread.thread_id, "lead", { input: say("again"), checkpointId: afterFirst });
    const forks = (await alice.threads.getHistory(thread.thread_id, { limit: 50 })).filter((s) => s.metadata?.source === "fork");
    expect(forks.map((s) => s.metadata?.keelForkOf)).toEqual([afterFirst]);
    expect(forks[0]!.metadata).not.toHaveProperty("keel_workspace");
    const written = await alice.threads.updateState(thread.thread_id, { values: { messages: [{ type: "human", content: "edit" }] }, asNode: "agent", checkpointId: afterFirst });
    expect(Object.keys(written)).toEqual(["checkpoint"]);
  });

  it("the saver keeps a checkpoint's metadata as written: source, step, parents and any other key (LangGraph's old `writes` too)", async () => {
    const threadId = `metadata-${name}`;
    const metadata = { source: "loop", step: 4, parents: { "": "parent-id" }, writes: { agent: { messages: ["hi"] } }, run_id: "r1" };
    const config = await checkpointer.put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { v: 4, id: "1f0a0000-0000-6000-8000-000000000001", ts: new Date(0).toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} }, metadata as never, {});
    expect((await checkpointer.getTuple(config))!.metadata).toEqual(metadata);
    const listed = [];
    for await (const tuple of checkpointer.list({ configurable: { thread_id: threadId } }, { filter: { source: "loop" } })) listed.push(tuple.metadata);
    expect(listed).toEqual([metadata]);
  });

  it("a checkpoint the thread does not have is a 404 naming the field; another thread's, or two different ids, a 400", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: say("hello") }).catch(() => undefined);
    const other = await alice.threads.create();
    await alice.runs.wait(other.thread_id, "lead", { input: say("elsewhere") }).catch(() => undefined);
    const foreign = await head(other.thread_id);
    expect(await sdkError(alice.runs.create(thread.thread_id, "lead", { input: say("x"), checkpointId: foreign }))).toMatchObject({ status: 404, body: { error: "KEEL_ERR_HTTP_NOT_FOUND", pointer: "/checkpoint_id" } });
    expect(await sdkError(alice.runs.create(thread.thread_id, "lead", { input: say("x"), checkpoint: { checkpoint_id: "nope" } as never }))).toMatchObject({ status: 404, body: { pointer: "/checkpoint/checkpoint_id" } });
    expect(await sdkError(alice.runs.create(thread.thread_id, "lead", { input: say("x"), checkpoint: { checkpoint_id: foreign, thread_id: other.thread_id } as never }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/checkpoint/thread_id" } });
    expect(await sdkError(alice.runs.create(thread.thread_id, "lead", { input: say("x"), checkpointId: "a", checkpoint: { checkpoint_id: "b" } as never }))).toMatchObject({ status: 400, body: { pointer: "/checkpoint/checkpoint_id" } });
    expect(await alice.runs.list(thread.thread_id)).toHaveLength(1);
  });

  it("every checkpoint of a finished run forks, the one before its model call too (it holds that step's writes): the step runs again from its values", async () => {
    const thread = await alice.threads.create();
    const finished = texts(await alice.runs.wait(thread.thread_id, "lead", { input: say("middle") }));
    expect(finished).toHaveLength(2);
    // Oldest first: the input (step -1), before the lead's model call (step 0), after it (step 1).
    const history = [...(await alice.threads.getHistory(thread.thread_id, { limit: 10 }))].reverse();
    expect(history.map((s) => s.metadata?.step)).toEqual([-1, 0, 1]);
    const beforeModel = history[1]!.checkpoint.checkpoint_id!;
    // LangGraph files the model step's writes under the checkpoint it started from.
    const saved = await checkpointer.getTuple({ configurable: { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: beforeModel } });
    expect(saved!.pendingWrites!.length).toBeGreaterThan(0);

    const forked = texts(await alice.runs.wait(thread.thread_id, "lead", { input: say("again"), checkpointId: beforeModel }));
    // The old step's writes (the answer `finished[1]`) are not applied: the model is asked again, after the new input.
    expect(forked.slice(0, 2)).toEqual(["middle", "again"]);
    expect(forked).toHaveLength(3);
    expect(forked[2]).not.toBe(finished[1]);
    expect(texts((await alice.threads.getState(thread.thread_id)).values)).toEqual(forked);
  });

  it("a checkpoint whose step has not finished (pending writes, no later checkpoint is its child) is refused with a 400; the one before it forks", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: say("steady") });
    const headTuple = (await checkpointer.getTuple({ configurable: { thread_id: thread.thread_id, checkpoint_ns: "" } }))!;
    // What a step in flight leaves: a finished task's writes under the head, before the next checkpoint.
    await checkpointer.putWrites(headTuple.config, [["messages", [{ type: "ai", content: "half-done", id: "half-1" }]]], "task-in-flight");
    expect(await sdkError(alice.runs.create(thread.thread_id, "lead", { input: say("x"), checkpointId: headTuple.checkpoint.id }))).toMatchObject({
      status: 400,
      body: { error: "KEEL_ERR_HTTP_UNSUPPORTED_FIELD", pointer: "/checkpoint_id", message: expect.stringContaining("step that has not finished") },
    });
    const parent = headTuple.parentConfig!.configurable!.checkpoint_id as string;
    const again = texts(await alice.runs.wait(thread.thread_id, "lead", { input: say("from the parent"), checkpointId: parent }));
    expect(again.slice(0, 2)).toEqual(["steady", "from the parent"]);
    expect(again.join(" ")).not.toContain("half-done");
  });
});
}

describeFork("memory", async () => ({ checkpointer: new MemorySaver(), store: new MemoryRunStore(), dispose: async () => undefined }));

const sqliteDir = mkdtempSync(join(tmpdir(), "keel-runs-fork-"));
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));
describeFork("SQLite", async () => {
  const url = `sqlite:${join(sqliteDir, "keel.db")}`;
  const store = await createSqlRunStore(url);
  const checkpointer = await createCheckpointer(url);
  return {
    checkpointer,
    store,
    dispose: async () => {
      await closeCheckpointer(checkpointer);
      await store.close();
    },
  };
});

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping the fork on PostgreSQL: ${skipReason}`);
  describe.skip(`runs from an earlier checkpoint: PostgreSQL (${skipReason})`, () => it("skipped", () => undefined));
} else {
  describeFork("PostgreSQL", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_runs_fork");
    const store = await createSqlRunStore(url);
    const checkpointer = await createCheckpointer(url);
    return {
      checkpointer,
      store,
      dispose: async () => {
        await closeCheckpointer(checkpointer);
        await store.close();
        await drop();
      },
    };
  });
}
