/**
 * A delegated child gets what the lead gets from its host (plugins/subagents/README.md,
 * "What a child inherits"): the run user's `item-store` view, and the run's plugin options
 * (an assistant's `context.plugins`, a request's) for the subagent stack's plugins of the
 * same names — while the assistant's `maxTurns` stays the lead's. Real runs through the
 * SDK against a gateway over the serve executor, with scripted models; the item store in
 * memory and on SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryAssistantStore } from "../../../kernel/assistants/memory-assistant-store.js";
import type { ItemStore } from "../../../kernel/ports/item-store.js";
import { MemoryItemStore } from "../../../kernel/runs/memory-item-store.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { SqlItemStore } from "../../../plugins/store-sql/index.js";
import { loadRunModels } from "../../../tools/serve/run-models.js";
import { createServeExecutor } from "../../../tools/serve/serve-executor.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
/** The served stack (its id is the file's path): subagents + loop-detection + the counter plugin; its children: loop-detection + the counter plugin. */
const STACK = join(FIXTURES, "counting-lead.stack.json");
const INPUT = { messages: [{ role: "user", content: "Count three times." }] };

interface Server {
  client: Client;
  close(): Promise<void>;
}

async function startServer(items: ItemStore, dir: string): Promise<Server> {
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const assistants = new MemoryAssistantStore();
  const executor = await createServeExecutor({
    stacks: [STACK],
    models: await loadRunModels({ kind: "scripted", file: join(FIXTURES, "counting.scenario.json") }),
    checkpointer: new MemorySaver(),
    store,
    items,
    workspaceRoot: join(dir, "ws"),
    bash: "off",
    maxTurns: 40,
    assistants,
  });
  const runs = new RunManager({ store, bridge, executor, maxTurns: 40, runtimeOwnedKeys: executor.runtimeOwnedKeys, log: () => undefined });
  runs.start();
  const app: GatewayApp = await createGateway({ deps: { runs, store, bridge, assistants, catalog: executor.catalog, items }, apiKeys: new ApiKeys([["key-alice", "alice"]]), stacks: [STACK], version: "test" });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    client: new Client({ apiUrl: url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } }),
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    },
  };
}

type Delegation = { status: string; stopReasons: Array<{ reason: string; by?: string }>; resultBrief: string };

/** One run on a new thread: the child's `count` results (its tool messages) and the lead's ledger entry. */
async function delegate(client: Client, assistantId: string) {
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, assistantId, { input: INPUT });
  await client.runs.join(thread.thread_id, run.run_id);
  expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  const state = await client.threads.getState<{ delegations: Delegation[] }>(thread.thread_id);
  const [delegation] = state.values.delegations;
  return { threadId: thread.thread_id, delegation: delegation! };
}

const counter = async (client: Client) => (await client.store.getItem(["counter"], "n"))?.value as { n: number; agent: string; thread: string } | undefined;

const backends: Array<{ name: string; open(dir: string): Promise<ItemStore> }> = [
  { name: "memory", open: async () => new MemoryItemStore() },
  { name: "SQLite", open: (dir) => SqlItemStore.open(`sqlite:${join(dir, "items.db")}`) },
];

describe.each(backends)("a delegated child's ports and options (item store: $name)", ({ open }) => {
  let dir: string;
  let items: ItemStore;
  let server: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-child-ports-"));
    items = await open(dir);
    server = await startServer(items, dir);
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await items?.close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the child's plugin reads and writes its user's item store through the port, across threads", async () => {
    const first = await delegate(server.client, STACK);
    expect(first.delegation.status).toBe("succeeded");
    // Three counts by the child (not the lead, which has the tool too but never calls it), read back over /store.
    const afterFirst = await counter(server.client);
    expect(afterFirst).toMatchObject({ n: 3, thread: first.threadId });
    expect(afterFirst!.agent).toMatch(/^lead\/.+/);

    // Another thread's child reads what the first one wrote, and goes on from it.
    const second = await delegate(server.client, STACK);
    expect(second.delegation.status).toBe("succeeded");
    expect(await counter(server.client)).toMatchObject({ n: 6, thread: second.threadId });
  }, 30_000);

  it("an assistant's options for a plugin the child stack has reach the child; its maxTurns stays the lead's", async () => {
    const before = (await counter(server.client))?.n ?? 0;
    // The system assistant: loop-detection's default hardLimit (5) lets the child count three times.
    const plain = await delegate(server.client, STACK);
    expect(plain.delegation.stopReasons).toEqual([]);
    expect((await counter(server.client))!.n).toBe(before + 3);

    // hardLimit 3: the child's third identical call set is stripped (never runs) and the child is loop_capped.
    // maxTurns 3 caps the lead (two turns here), not the child, which makes four model calls and is not turn_capped.
    const tight = await server.client.assistants.create({ graphId: STACK, name: "tight loops", context: { plugins: { "loop-detection": { warnAt: 2, hardLimit: 3 } }, maxTurns: 3 } } as never);
    const capped = await delegate(server.client, tight.assistant_id);
    expect(capped.delegation.stopReasons.map((s) => [s.reason, s.by])).toEqual([["loop_capped", "loop-detection"]]);
    expect((await counter(server.client))!.n).toBe(before + 3 + 2);

    // A request's options work the same way on the system assistant (merged over an assistant's, plugin by plugin).
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, STACK, { input: INPUT, context: { plugins: { "loop-detection": { hardLimit: 2, warnAt: 1 } } } } as never);
    await server.client.runs.join(thread.thread_id, run.run_id);
    const state = await server.client.threads.getState<{ delegations: Delegation[] }>(thread.thread_id);
    expect(state.values.delegations[0]!.stopReasons.map((s) => s.reason)).toEqual(["loop_capped"]);
    expect((await counter(server.client))!.n).toBe(before + 3 + 2 + 1);
  }, 30_000);
});
