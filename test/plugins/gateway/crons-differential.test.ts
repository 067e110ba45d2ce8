/**
 * The crons client against LangGraph's JS server (`@langchain/langgraph-api` 1.5.1, the
 * in-memory server `langgraph dev` runs, started from tools/bench/langgraph-server.ts) and
 * against Keel, with the same SDK calls: LangGraph's OSS server has no crons (`/info` says
 * `crons: false`; its routes answer a validation 400 (create), 500 "Not implemented" (search, delete) or 404 (count, update)), Keel
 * serves every method. This is the intended difference listed in docs/http.md,
 * "Crons API"; the shape Keel answers is the Agent Server API reference's Cron.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../kernel/package-root.js";
import { MemoryCronStore } from "../../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { assertBuilt, tempDir } from "../../e2e/serve-process.js";
import { ScriptedExecutor } from "./harness.js";

const SERVER = join(packageRoot(), "dist", "tools", "bench", "langgraph-server.js");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The status of an SDK call: 200 when it resolved, else the HTTP status it failed with. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

describe("crons: LangGraph's JS server and Keel, same SDK calls", () => {
  let langgraph: ChildProcess;
  let langgraphUrl: string;
  let keel: GatewayApp;
  let keelUrl: string;
  let runs: RunManager;

  beforeAll(async () => {
    assertBuilt();
    const port = await freePort();
    langgraphUrl = `http://127.0.0.1:${port}`;
    langgraph = spawn(process.execPath, [SERVER, String(port), tempDir("keel-lg-crons-")], { stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`the LangGraph server did not start: ${out}`)), 25_000);
      langgraph.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("ready")) (clearTimeout(timer), resolve());
      });
      langgraph.once("exit", (code) => (clearTimeout(timer), reject(new Error(`the LangGraph server exited (${code}): ${out}`))));
    });
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
    keel = await createGateway({ deps: { runs, store, bridge, crons: new MemoryCronStore() }, stacks: ["bench"], version: "9.9.9-test" });
    await keel.listen({ host: "127.0.0.1", port: 0 });
    keelUrl = `http://127.0.0.1:${(keel.server.address() as { port: number }).port}`;
  }, 30_000);

  afterAll(async () => {
    langgraph?.kill("SIGTERM");
    await runs?.shutdown();
    await keel?.close();
  });

  it("/info: LangGraph says crons: false, Keel crons: true", async () => {
    const flags = async (url: string) => ((await (await fetch(`${url}/info`)).json()) as { flags: Record<string, unknown> }).flags;
    expect((await flags(langgraphUrl)).crons).toBe(false);
    expect((await flags(keelUrl)).crons).toBe(true);
  });

  it("every crons method: refused by LangGraph's OSS server, served by Keel", async () => {
    const calls = async (client: Client, threadId: string) => {
      const created = await statusOf(client.crons.create("bench", { schedule: "0 9 * * *" }));
      const forThread = await statusOf(client.crons.createForThread(threadId, "bench", { schedule: "0 9 * * *" }));
      const search = await statusOf(client.crons.search());
      const count = await statusOf(client.crons.count());
      const existing = (await client.crons.search().catch(() => []))[0]?.cron_id ?? "00000000-0000-4000-8000-000000000000";
      const update = await statusOf(client.crons.update(existing, { enabled: false }));
      const remove = await statusOf(client.crons.delete(existing));
      return { created, forThread, search, count, update, remove };
    };
    const lg = new Client({ apiUrl: langgraphUrl, callerOptions: { maxRetries: 0 } });
    const ours = new Client({ apiUrl: keelUrl, callerOptions: { maxRetries: 0 } });
    const lgThread = await lg.threads.create();
    const ourThread = await ours.threads.create();
    expect(await calls(lg, lgThread.thread_id)).toEqual({ created: 400, forThread: 400, search: 500, count: 404, update: 404, remove: 500 });
    expect(await calls(ours, ourThread.thread_id)).toEqual({ created: 200, forThread: 200, search: 200, count: 200, update: 200, remove: 200 });
  });
});
