import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import type { AssistantStore } from "../../../kernel/assistants/types.js";
import { MemoryAssistantStore } from "../../../kernel/assistants/memory-assistant-store.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { loadRunModels } from "../../../tools/serve/run-models.js";
import { createServeExecutor } from "../../../tools/serve/serve-executor.js";

export interface AssistantsServer {
  url: string;
  app: GatewayApp;
  store: MemoryRunStore;
  assistants: AssistantStore;
  runs: RunManager;
  alice: Client;
  bob: Client;
  close(): Promise<void>;
}

/**
 * A gateway over the real serve executor (the demo model, the built-in `lead` and
 * `subagent` stacks, scripted bash), listening on a free loopback port, with two users.
 */
export async function startAssistantsServer(options: { assistants?: AssistantStore; now?: () => string } = {}): Promise<AssistantsServer> {
  const dir = mkdtempSync(join(tmpdir(), "keel-assistants-"));
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const assistants = options.assistants ?? new MemoryAssistantStore();
  const executor = await createServeExecutor({
    stacks: ["lead", "subagent"],
    models: await loadRunModels({ kind: "demo" }),
    checkpointer: new MemorySaver(),
    store,
    workspaceRoot: join(dir, "ws"),
    bash: "off",
    maxTurns: 40,
    assistants,
    allowedModels: ["demo"],
  });
  const runs = new RunManager({ store, bridge, executor, maxTurns: 40, allowedModels: ["demo"], runtimeOwnedKeys: executor.runtimeOwnedKeys, log: () => undefined });
  runs.start();
  const app = await createGateway({
    deps: { runs, store, bridge, assistants, catalog: executor.catalog },
    apiKeys: new ApiKeys([["key-alice", "alice"], ["key-bob", "bob"]]),
    stacks: ["lead", "subagent"],
    version: "9.9.9-test",
    ...(options.now ? { now: options.now } : {}),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const client = (apiKey: string) => new Client({ apiUrl: url, apiKey, callerOptions: { maxRetries: 0 } });
  return {
    url,
    app,
    store,
    assistants,
    runs,
    alice: client("key-alice"),
    bob: client("key-bob"),
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An SDK call's failure as `{ status, body }` (the SDK throws an HTTPError carrying both). */
export async function failure(call: Promise<unknown>): Promise<{ status: number; body: { error?: string; message?: string; pointer?: string } }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; message?: string; error?: unknown };
    const raw = e.message ?? "";
    const json = raw.slice(raw.indexOf("{"));
    return { status: e.status ?? 0, body: (() => { try { return JSON.parse(json); } catch { return {}; } })() };
  }
  throw new Error("the call succeeded");
}
