/**
 * A gateway over the real run service, the real agent loop and a scripted model (the e2e
 * `steps` scenario: its first bash call waits while the thread's workspace holds a file
 * `hold`), on one of three backends: memory (MemoryRunStore + MemorySaver, wired here as a
 * host would), SQLite or PostgreSQL (both through `startServer`, as `keel serve` does).
 * Alice and Bob are SDK clients with their own API keys.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import { MemoryAssistantStore } from "../../../kernel/assistants/memory-assistant-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { KERNEL_VERSION } from "../../../kernel/version.js";
import { ApiKeys, createGateway } from "../../../plugins/gateway/index.js";
import { parseModelSpec } from "../../../tools/serve/model-spec.js";
import { loadRunModels } from "../../../tools/serve/run-models.js";
import { createServeExecutor } from "../../../tools/serve/serve-executor.js";
import { resolveServeOptions } from "../../../tools/serve/serve-options.js";
import { startServer } from "../../../tools/serve/start-server.js";
import { FIXTURES } from "../../e2e/serve-process.js";

export type Backend = "memory" | "sqlite" | "postgres";

export interface ThreadsServer {
  url: string;
  alice: Client;
  bob: Client;
  /** Make the thread's next run wait in its first bash call until `release`. */
  hold(threadId: string): void;
  release(threadId: string): void;
  close(): Promise<void>;
}

const MODEL = `scripted:${join(FIXTURES, "steps.scenario.json")}`;
const KEYS = "key-alice:alice,key-bob:bob";

export async function startThreadsServer(backend: Backend, pgUrl?: string): Promise<ThreadsServer> {
  const dir = mkdtempSync(join(tmpdir(), `keel-threads-${backend}-`));
  let url: string;
  let workspaces: string;
  let stop: () => Promise<void>;
  if (backend === "memory") {
    workspaces = join(dir, "workspaces");
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    const checkpointer = new MemorySaver();
    // One assistants store for the gateway and the executor: a user assistant's runs find their stack.
    const assistants = new MemoryAssistantStore();
    const models = await loadRunModels(parseModelSpec(MODEL, dir));
    const executor = await createServeExecutor({ stacks: ["lead"], models, checkpointer, store, workspaceRoot: workspaces, bash: "on", maxTurns: 500, assistants });
    const runs = new RunManager({ store, bridge, executor, runtimeOwnedKeys: executor.runtimeOwnedKeys, log: () => undefined });
    runs.start();
    const app = await createGateway({ deps: { runs, store, bridge, threadState: executor.threadState, assistants }, apiKeys: ApiKeys.parse(KEYS), stacks: ["lead"], version: KERNEL_VERSION });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    stop = async () => {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    };
  } else {
    const db = backend === "sqlite" ? `sqlite:${join(dir, "keel.db")}` : pgUrl!;
    const options = resolveServeOptions({ port: "0", db, model: MODEL }, { KEEL_API_KEYS: KEYS }, dir);
    const server = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
    url = server.url;
    workspaces = server.workspacesDir;
    stop = () => server.close();
  }
  const client = (apiKey: string) => new Client({ apiUrl: url, apiKey, callerOptions: { maxRetries: 0 } });
  const holdFile = (threadId: string) => join(workspaces, threadId, "hold");
  return {
    url,
    alice: client("key-alice"),
    bob: client("key-bob"),
    hold(threadId) {
      mkdirSync(join(workspaces, threadId), { recursive: true });
      writeFileSync(holdFile(threadId), "");
    },
    release: (threadId) => rmSync(holdFile(threadId), { force: true }),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
