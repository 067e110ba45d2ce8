import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@langchain/langgraph-sdk";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import type { WebhookOptions } from "../../../plugins/gateway/webhook.js";
import { ScriptedExecutor } from "./harness.js";

/** A clock the test moves by hand (`after_seconds` due times); it never moves by itself. */
export class ManualClock {
  constructor(public ms = Date.parse("2030-01-01T00:00:00.000Z")) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface RunsApiHarness {
  app: GatewayApp;
  url: string;
  store: RunStore;
  runs: RunManager;
  executor: ScriptedExecutor;
  clock: ManualClock;
  alice: Client;
  bob: Client;
  close(): Promise<void>;
}

/**
 * A listening gateway over the scripted executor (harness.ts: the run's input says what it
 * does) on a manual clock, with `@langchain/langgraph-sdk` clients for alice and bob.
 */
export async function startRunsApi(options: { webhooks?: WebhookOptions; maxTurns?: number; store?: RunStore } = {}): Promise<RunsApiHarness> {
  const store = options.store ?? new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const executor = new ScriptedExecutor();
  const clock = new ManualClock();
  const runs = new RunManager({ store, bridge, executor, clock, log: () => undefined, claimPollMs: 20, ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}) });
  runs.start();
  const apiKeys = new ApiKeys([
    ["key-alice", "alice"],
    ["key-bob", "bob"],
  ]);
  const app = await createGateway({
    deps: { runs, store, bridge },
    apiKeys,
    stacks: ["lead", "subagent"],
    version: "9.9.9-test",
    now: () => new Date(clock.now()).toISOString(),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const client = (apiKey: string) => new Client({ apiUrl: url, apiKey, callerOptions: { maxRetries: 0 } });
  return {
    app,
    url,
    store,
    runs,
    executor,
    clock,
    alice: client("key-alice"),
    bob: client("key-bob"),
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    },
  };
}

/** What an SDK call that failed answered: the HTTP status and Keel's error body. */
export async function sdkError(call: Promise<unknown>): Promise<{ status: number; body: { error: string; message: string; pointer?: string } }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; message: string };
    const text = e.message.replace(/^HTTP \d+: /, "");
    return { status: e.status ?? 0, body: JSON.parse(text) };
  }
  throw new Error("the call succeeded");
}

export interface ReceivedHook {
  body: Record<string, unknown>;
  contentType: string | undefined;
}

/**
 * A real local HTTP server receiving webhooks. `answers` are the statuses of the first
 * requests in turn (`"hang"`: never answer that one); after them every request gets 200.
 */
export async function startWebhookReceiver(answers: Array<number | "hang"> = []): Promise<{ url: string; port: number; received: ReceivedHook[]; close(): Promise<void> }> {
  const received: ReceivedHook[] = [];
  const queue = [...answers];
  const server: Server = createServer((request: IncomingMessage, response) => {
    let raw = "";
    request.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk));
    request.on("end", () => {
      received.push({ body: JSON.parse(raw) as Record<string, unknown>, contentType: request.headers["content-type"] });
      const answer = queue.shift() ?? 200;
      if (answer === "hang") return;
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
