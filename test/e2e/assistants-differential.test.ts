import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphAssistantUuid } from "../../kernel/assistants/graph-uuid.js";
import { packageRoot } from "../../kernel/package-root.js";
import { startAssistantsServer, type AssistantsServer } from "../plugins/gateway/assistants-harness.js";

/**
 * The same SDK assistants calls against `@langchain/langgraph-api` 1.5.1 (its in-memory
 * server, graph `bench`) and against Keel (stack `lead`); answers compared with ids,
 * timestamps and the graph name masked. Every intended difference is listed in the
 * docs/http.md ("Assistants API") and asserted here as such.
 */
const ENTRY = join(packageRoot(), "dist", "tools", "bench", "langgraph-server.js");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
/** Ids, timestamps and the graph's name replaced, so the two servers' answers compare. */
function mask(value: unknown, graph: string): unknown {
  return JSON.parse(JSON.stringify(value).replace(UUID, "<id>").replace(ISO, "<time>").replaceAll(`"${graph}"`, '"<graph>"'));
}

describe("assistants: Keel against @langchain/langgraph-api", () => {
  let child: ChildProcess;
  let dir: string;
  let langgraph: Client;
  let keel: AssistantsServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-differential-"));
    const port = await freePort();
    child = spawn(process.execPath, [ENTRY, String(port), dir], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "error", LANGSMITH_TRACING: "false" } });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      child.once("exit", (code) => reject(new Error(`the LangGraph API server exited (${code})`)));
    });
    langgraph = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
    keel = await startAssistantsServer();
  }, 60_000);

  afterAll(async () => {
    child?.kill("SIGTERM");
    await keel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Run `call` on both servers (graph `bench` there, `lead` here) and return both answers masked. */
  const both = async <T>(call: (client: Client, graph: string) => Promise<T>): Promise<[unknown, unknown]> => [mask(await call(langgraph, "bench"), "bench"), mask(await call(keel.alice, "lead"), "lead")];

  it("create, get, update, getVersions, setLatest, count and delete answer the same shapes and values", async () => {
    const flow = async (client: Client, graph: string) => {
      const created = await client.assistants.create({ graphId: graph, metadata: { suite: "diff", n: 1 }, config: { configurable: { a: 1 } } });
      const got = await client.assistants.get(created.assistant_id);
      const patched = await client.assistants.update(created.assistant_id, { name: "renamed", metadata: { n: 2 } });
      const versions = await client.assistants.getVersions(created.assistant_id);
      const latest = await client.assistants.setLatest(created.assistant_id, 1);
      const counted = await client.assistants.count({ metadata: { suite: "diff" } });
      const selected = await client.assistants.search({ metadata: { suite: "diff" }, select: ["assistant_id", "name", "version"] });
      const named = await client.assistants.search({ name: "RENAM" });
      await client.assistants.delete(created.assistant_id);
      const after = await client.assistants.count({ metadata: { suite: "diff" } });
      return { created, got, patched, versions: versions.map((v) => ({ version: v.version, name: v.name, metadata: v.metadata })), latest: { version: latest.version, name: latest.name, metadata: latest.metadata }, counted, selected, named: named.length, after };
    };
    const [theirs, ours] = await both(flow);
    expect(ours).toEqual(theirs);
  });

  it("the system assistant of a graph: LangGraph's uuid5 id is Keel's alias (Keel's own id is the stack name), created_by system", async () => {
    const pick = (a: { graph_id: string; name: string; metadata: unknown; version: number; config: unknown }) => ({ graph_id: a.graph_id, name: a.name, metadata: a.metadata, version: a.version, config: a.config });
    const [theirs, ours] = await both(async (client, graph) => {
      const [system] = await client.assistants.search({ graphId: graph, metadata: { created_by: "system" } });
      return pick(system!);
    });
    expect(ours).toEqual(theirs);
    const [system] = await langgraph.assistants.search({ graphId: "bench", metadata: { created_by: "system" } });
    expect(system!.assistant_id).toBe(graphAssistantUuid("bench"));
    expect((await keel.alice.assistants.get(graphAssistantUuid("lead"))).assistant_id).toBe("lead");
  });

  it("a missing assistant is a 404 on both", async () => {
    const statuses = await Promise.all([langgraph, keel.alice].map((client) => client.assistants.get("00000000-0000-4000-8000-000000000000").then(() => 200, (error: { status?: number }) => error.status)));
    expect(statuses).toEqual([404, 404]);
  });
});
