/**
 * The `item-store` port: a tiny plugin's tools remember a fact in one thread and recall it
 * in another (long-term memory across threads), through the LangGraph BaseStore view of
 * the run's user; the same user reads the item over the store API, another user does not.
 */
import type { BaseStore } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { RunScope, steppingClock } from "../../../kernel/loop/run-scope.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import { ITEM_STORE_PORT } from "../../../kernel/ports/item-store.js";
import { UserItemStore } from "../../../kernel/ports/user-item-store.js";
import { MemoryItemStore } from "../../../kernel/runs/memory-item-store.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../../tools/testing/scripted-model.js";
import { ScriptedExecutor } from "./harness.js";

const NOW = "2026-02-01T10:00:00.000Z";

/** The plugin under test: `remember` and `recall` tools on the `item-store` port. */
const memoryPlugin = definePlugin({
  manifest: { name: "test-memory", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "test plugin: remembers facts across threads", hooks: {} },
  hooks: {},
  tools: [
    {
      name: "remember",
      description: "remember a fact",
      schema: { type: "object", properties: { fact: { type: "string" } } },
      invoke: async (args, ctx) => {
        await ctx.port<BaseStore>(ITEM_STORE_PORT).put(["memories"], "fact", { text: args.fact, thread: ctx.threadId });
        return "remembered";
      },
    },
    {
      name: "recall",
      description: "recall the fact",
      schema: { type: "object" },
      invoke: async (_args, ctx) => {
        const item = await ctx.port<BaseStore>(ITEM_STORE_PORT).get(["memories"], "fact");
        const found = await ctx.port<BaseStore>(ITEM_STORE_PORT).search(["memories"], { filter: { thread: "thread-a" } });
        return JSON.stringify({ text: item?.value.text ?? null, found: found.length });
      },
    },
  ],
});

async function runThread(items: MemoryItemStore, user: string, threadId: string, script: ScriptedAgent) {
  const runtime = createAgentRuntime(compose({ name: "memory-test", plugins: [memoryPlugin] }, { plugins: [memoryPlugin] }), {
    model: new ScriptedChatModel({ script }),
    ports: { [ITEM_STORE_PORT]: new UserItemStore(items, user, { now: () => NOW }) },
  });
  const scope = new RunScope(`run-${threadId}`, threadId, steppingClock(0), { event: () => undefined, journal: () => undefined, modelRequest: () => undefined });
  return runtime.run({ threadId, runId: `run-${threadId}`, input: "go", scope });
}

const toolResults = (result: Awaited<ReturnType<typeof runThread>>) => result.messages.filter((m) => m.getType() === "tool").map((m) => m.content);

describe("the item-store port", () => {
  const items = new MemoryItemStore();
  let app: GatewayApp;
  let runs: RunManager;
  let apiUrl: string;

  beforeAll(async () => {
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
    runs.start();
    app = await createGateway({ deps: { runs, store, bridge, items }, apiKeys: new ApiKeys([["key-alice", "alice"], ["key-bob", "bob"]]), stacks: ["lead"], version: "test" });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    apiUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await runs.shutdown();
    await app.close();
  });

  it("a plugin remembers in one thread and recalls in another; its user sees the item over /store, another user does not", async () => {
    const wrote = await runThread(items, "alice", "thread-a", { turns: [{ toolCalls: [{ name: "remember", args: { fact: "the tide turns at six" } }] }, { content: "ok" }] });
    expect(toolResults(wrote)).toEqual(["remembered"]);

    const read = await runThread(items, "alice", "thread-b", { turns: [{ toolCalls: [{ name: "recall", args: {} }] }, { content: "ok" }] });
    expect(toolResults(read)).toEqual([JSON.stringify({ text: "the tide turns at six", found: 1 })]);

    const alice = new Client({ apiUrl, apiKey: "key-alice" });
    expect(await alice.store.getItem(["memories"], "fact")).toMatchObject({ namespace: ["memories"], key: "fact", value: { text: "the tide turns at six", thread: "thread-a" }, created_at: NOW });

    // Bob's runs and requests have a memory of their own.
    const bobRead = await runThread(items, "bob", "thread-c", { turns: [{ toolCalls: [{ name: "recall", args: {} }] }, { content: "ok" }] });
    expect(toolResults(bobRead)).toEqual([JSON.stringify({ text: null, found: 0 })]);
    expect(await new Client({ apiUrl, apiKey: "key-bob" }).store.getItem(["memories"], "fact")).toBeNull();
  });

  it("the BaseStore view: put with ttl, delete, listNamespaces, and query refused without an index", async () => {
    let now = "2026-03-01T00:00:00.000Z";
    const view = new UserItemStore(items, "carol", { now: () => now });
    await view.put(["notes", "x"], "short", { v: 1 }, undefined, { ttl: 1 });
    await view.put(["notes", "y"], "long", { v: 2 });
    expect(await view.listNamespaces({ prefix: ["notes"] })).toEqual([
      ["notes", "x"],
      ["notes", "y"],
    ]);
    now = "2026-03-01T00:01:00.000Z";
    expect(await view.get(["notes", "x"], "short")).toBeNull();
    await view.delete(["notes", "y"], "long");
    expect(await view.search(["notes"])).toEqual([]);
    await expect(view.search(["notes"], { query: "tides" })).rejects.toMatchObject({ code: "KEEL_ERR_STORE_NO_INDEX" });
    await expect(view.put(["notes"], "k", { v: 1 }, ["text"])).rejects.toMatchObject({ code: "KEEL_ERR_STORE_NO_INDEX" });
    await expect(view.put(["langgraph"], "k", { v: 1 })).rejects.toMatchObject({ code: "KEEL_ERR_STORE_NAMESPACE_INVALID" });
  });
});
