/**
 * Cron fires carry LangGraph's metadata stamps (plugins/gateway/README.md, "Crons API"), as a
 * run created through the run routes does (run-metadata.ts): the fire's thread gets
 * `graph_id` and `assistant_id`, and the fire's run the assistant's metadata, the thread's,
 * the cron's and `cron_id`. Driven through `@langchain/langgraph-sdk` (`crons.create` /
 * `createForThread`, then `threads.search` by `graph_id` and `runs.list`), fired by the
 * scheduler `keel serve` builds (with the gateway's `cronFireMetadata`) on an injected clock.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryAssistantStore } from "../../../kernel/assistants/memory-assistant-store.js";
import { CronScheduler } from "../../../kernel/runs/cron-scheduler.js";
import { MemoryCronStore } from "../../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, cronFireMetadata, type GatewayApp } from "../../../plugins/gateway/index.js";
import { ManualClock } from "../../runs/run-manager-harness.js";
import { ScriptedExecutor, until } from "./harness.js";

const MINUTE = 60_000;
const STACKS = ["lead", "subagent"];

describe("cron fires stamp their runs and threads as the run routes do", () => {
  let app: GatewayApp;
  let runs: RunManager;
  let store: MemoryRunStore;
  let crons: MemoryCronStore;
  let scheduler: CronScheduler;
  let clock: ManualClock;
  let alice: Client;

  beforeAll(async () => {
    clock = new ManualClock();
    store = new MemoryRunStore();
    crons = new MemoryCronStore();
    const assistants = new MemoryAssistantStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), clock, log: () => undefined });
    scheduler = new CronScheduler({ crons, runs, store, clock, fireMetadata: cronFireMetadata({ stacks: STACKS, assistants }), log: () => undefined });
    app = await createGateway({ deps: { runs, store, bridge, crons, assistants }, apiKeys: new ApiKeys([["key-alice", "alice"]]), stacks: STACKS, version: "test", now: () => new Date(clock.now()).toISOString() });
    await app.listen({ host: "127.0.0.1", port: 0 });
    alice = new Client({ apiUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
  });
  afterAll(async () => {
    await scheduler.settled();
    await runs.shutdown();
    await app.close();
  });

  async function fire(): Promise<void> {
    clock.advance(MINUTE);
    await scheduler.tick();
    await until(async () => (await store.countRuns("running")) === 0 && (await store.countRuns("pending")) === 0, "no run in flight");
  }

  it("a thread cron on a system assistant: the thread gets graph_id and assistant_id; the run the system metadata, the thread's, the cron's and cron_id", async () => {
    const thread = await alice.threads.create({ metadata: { owner_team: "tides" } });
    const cron = await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "* * * * *", input: { events: 1 }, metadata: { fired: "thread" } });
    expect(await alice.threads.search({ metadata: { graph_id: "lead" } })).toEqual([]);

    await fire();
    const found = await alice.threads.search({ metadata: { graph_id: "lead" } });
    expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect(found[0]!.metadata).toEqual({ owner_team: "tides", graph_id: "lead", assistant_id: "lead" });
    const [run] = await alice.runs.list(thread.thread_id);
    expect(run!.metadata).toEqual({ created_by: "system", owner_team: "tides", graph_id: "lead", assistant_id: "lead", fired: "thread", cron_id: cron.cron_id });
    await alice.crons.delete(cron.cron_id);
  });

  it("a stateless cron on a user assistant: the new thread starts with the stamps, the cron's metadata and cron_id; the run holds no thread metadata", async () => {
    const assistant = await alice.assistants.create({ graphId: "subagent", name: "nightly", metadata: { team: "night" } });
    const cron = await alice.crons.create(assistant.assistant_id, { schedule: "* * * * *", input: { events: 1 }, onRunCompleted: "keep", metadata: { fired: "stateless" } });

    await fire();
    const found = await alice.threads.search({ metadata: { graph_id: "subagent", assistant_id: assistant.assistant_id } });
    expect(found).toHaveLength(1);
    expect(found[0]!.metadata).toEqual({ graph_id: "subagent", assistant_id: assistant.assistant_id, fired: "stateless", cron_id: cron.cron_id });
    const [run] = await alice.runs.list(found[0]!.thread_id);
    expect(run).toMatchObject({ assistant_id: assistant.assistant_id, status: "success" });
    expect(run!.metadata).toEqual({ team: "night", fired: "stateless", cron_id: cron.cron_id });

    // The next fire makes another stamped thread; the assistant's threads are found by its id.
    await fire();
    expect(await alice.threads.search({ metadata: { assistant_id: assistant.assistant_id } })).toHaveLength(2);
    await alice.crons.delete(cron.cron_id);
  });
});
