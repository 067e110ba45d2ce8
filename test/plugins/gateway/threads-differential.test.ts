import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startThreadsServer, type ThreadsServer } from "./threads-api-server.js";

/**
 * The same SDK calls against LangGraph's own server (`@langchain/langgraph-api` 1.5.1 in a
 * child process, a graph of the agent loop's shape: `messages`, nodes `agent` and `tools`)
 * and against Keel's gateway; the answers are compared with ids and timestamps masked.
 * Every intended difference is listed here and in docs/http.md ("Threads API").
 */
const INTENDED = {
  /** Keel's Thread has these fields LangGraph's JS server does not write, and lacks `config` (threads have no config in Keel). */
  threadOnlyKeel: ["interrupts", "state_updated_at"],
  threadOnlyLangGraph: ["config"],
};

const human = (content: string) => ({ type: "human", content });
const contents = (values: unknown) => ((values as { messages?: { content: unknown }[] }).messages ?? []).map((m) => m.content);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function startLangGraph(): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "keel-langgraph-threads-"));
  const script = fileURLToPath(new URL("./fixtures/langgraph-threads-server.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, String(port), dir], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`LangGraph's server did not start: ${output}`)), 25_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`LangGraph's server exited (${code}): ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, dir };
}

const keysOf = (value: object) => Object.keys(value).sort();
const without = (keys: string[], drop: string[]) => keys.filter((k) => !drop.includes(k));

describe("threads: Keel's answers against LangGraph's server, ids and timestamps masked", () => {
  let langgraph: Awaited<ReturnType<typeof startLangGraph>>;
  let keel: ThreadsServer;
  let clients: { name: "langgraph" | "keel"; client: Client }[];

  beforeAll(async () => {
    [langgraph, keel] = await Promise.all([startLangGraph(), startThreadsServer("memory")]);
    clients = [
      { name: "langgraph", client: new Client({ apiUrl: langgraph.url, callerOptions: { maxRetries: 0 } }) },
      { name: "keel", client: keel.alice },
    ];
  }, 40_000);

  afterAll(async () => {
    langgraph?.child.kill("SIGTERM");
    await keel?.close();
    if (langgraph) rmSync(langgraph.dir, { recursive: true, force: true });
  });

  /** Run `scenario` on both servers; the two results side by side. */
  async function both<T>(scenario: (client: Client) => Promise<T>): Promise<{ langgraph: T; keel: T }> {
    const [a, b] = await Promise.all(clients.map(({ client }) => scenario(client)));
    return { langgraph: a!, keel: b! };
  }

  it("create (metadata, supersteps), get, update, patchState: the same fields and values but the listed differences", async () => {
    const out = await both(async (c) => {
      const created = await c.threads.create({ graphId: "lead", metadata: { team: "red", n: 1 }, supersteps: [{ updates: [{ values: { messages: [human("one")] }, asNode: "agent" }] }, { updates: [{ values: { messages: [human("two")] }, asNode: "agent" }] }] });
      const updated = await c.threads.update(created.thread_id, { metadata: { n: 2, extra: true } });
      await c.threads.patchState(created.thread_id, { patched: 1 }).catch(() => undefined);
      const got = await c.threads.get(created.thread_id);
      return { created, updated, got };
    });
    for (const key of ["created", "updated", "got"] as const) {
      const l = out.langgraph[key];
      const k = out.keel[key];
      expect(without(keysOf(k), INTENDED.threadOnlyKeel), key).toEqual(without(keysOf(l), INTENDED.threadOnlyLangGraph));
      expect(k.status).toBe(l.status);
    }
    expect(out.keel.created.metadata).toEqual(out.langgraph.created.metadata);
    expect(out.keel.updated.metadata).toEqual(out.langgraph.updated.metadata);
    expect(contents(out.keel.created.values)).toEqual(contents(out.langgraph.created.values));
  });

  it("getState, updateState (as_node, a fork) and getHistory: the same shapes, sources, steps, parents and messages", async () => {
    const out = await both(async (c) => {
      const thread = await c.threads.create({ graphId: "lead", supersteps: [{ updates: [{ values: { messages: [human("one")] }, asNode: "agent" }] }] });
      const first = await c.threads.getState(thread.thread_id);
      const written = await c.threads.updateState(thread.thread_id, { values: { messages: [human("two")] }, asNode: "agent" });
      const head = await c.threads.getState(thread.thread_id);
      const fork = await c.threads.updateState(thread.thread_id, { values: { messages: [human("fork")] }, asNode: "tools", checkpointId: first.checkpoint.checkpoint_id! });
      const forked = await c.threads.getState(thread.thread_id);
      const atFirst = await c.threads.getState(thread.thread_id, first.checkpoint.checkpoint_id!);
      const history = await c.threads.getHistory(thread.thread_id, { limit: 10 });
      const before = await c.threads.getHistory(thread.thread_id, { limit: 10, before: head.checkpoint.checkpoint_id as never });
      const updates = await c.threads.getHistory(thread.thread_id, { limit: 10, metadata: { source: "update" } });
      return { thread, first, written, head, fork, forked, atFirst, history, before, updates };
    });
    const { langgraph: l, keel: k } = out;
    expect(keysOf(k.written)).toEqual(keysOf(l.written));
    expect(keysOf(k.written.checkpoint)).toEqual(keysOf(l.written.checkpoint));
    for (const key of ["first", "head", "forked", "atFirst"] as const) {
      expect(keysOf(k[key]), key).toEqual(keysOf(l[key]));
      expect(keysOf(k[key].checkpoint), key).toEqual(keysOf(l[key].checkpoint));
      expect(k[key].next, key).toEqual(l[key].next);
      expect(contents(k[key].values), key).toEqual(contents(l[key].values));
      expect([k[key].metadata?.source, k[key].metadata?.step], key).toEqual([l[key].metadata?.source, l[key].metadata?.step]);
      // The same parent structure: the parent is the same checkpoint of each server's own history.
      expect(k[key].parent_checkpoint === null, key).toBe(l[key].parent_checkpoint === null);
    }
    expect(k.head.parent_checkpoint?.checkpoint_id).toBe(k.first.checkpoint.checkpoint_id);
    expect(l.head.parent_checkpoint?.checkpoint_id).toBe(l.first.checkpoint.checkpoint_id);
    expect(k.forked.parent_checkpoint?.checkpoint_id).toBe(k.first.checkpoint.checkpoint_id);
    expect(l.forked.parent_checkpoint?.checkpoint_id).toBe(l.first.checkpoint.checkpoint_id);
    const shape = (states: typeof k.history) => states.map((s) => [s.metadata?.source, s.metadata?.step, contents(s.values), s.next]);
    expect(shape(k.history)).toEqual(shape(l.history));
    expect(shape(k.before)).toEqual(shape(l.before));
    expect(shape(k.updates)).toEqual(shape(l.updates));
  });

  it("search (metadata, ids, sort, select, limit / offset) and count answer alike", async () => {
    const tag = `tag-${Date.now()}`;
    const out = await both(async (c) => {
      const made = [];
      for (const color of ["red", "blue", "red"]) made.push(await c.threads.create({ graphId: "lead", metadata: { tag, color } }));
      const ids = made.map((t) => t.thread_id);
      const index = (found: { thread_id: string }[]) => found.map((t) => ids.indexOf(t.thread_id));
      return {
        newest: index(await c.threads.search({ metadata: { tag } })),
        red: index(await c.threads.search({ metadata: { tag, color: "red" }, sortOrder: "asc", sortBy: "created_at" })),
        page: index(await c.threads.search({ metadata: { tag }, limit: 1, offset: 1 })),
        byIds: index(await c.threads.search({ ids: [ids[0]!, ids[2]!] })),
        selected: (await c.threads.search({ ids: [ids[1]!], select: ["thread_id", "status"] })).map((t) => keysOf(t)),
        count: await c.threads.count({ metadata: { tag } }),
        countRed: await c.threads.count({ metadata: { tag, color: "red" } }),
      };
    });
    expect(out.keel).toEqual(out.langgraph);
  });

  it("copy: metadata plus the new thread_id, the same state and history", async () => {
    const out = await both(async (c) => {
      const thread = await c.threads.create({ graphId: "lead", metadata: { origin: "x" }, supersteps: [{ updates: [{ values: { messages: [human("one")] }, asNode: "agent" }] }, { updates: [{ values: { messages: [human("two")] }, asNode: "agent" }] }] });
      const copy = await c.threads.copy(thread.thread_id);
      const history = await c.threads.getHistory(copy.thread_id, { limit: 10 });
      return { copyMetadataIsOwnId: copy.metadata?.thread_id === copy.thread_id, metadata: { ...copy.metadata, thread_id: "masked" }, status: copy.status, history: history.map((s) => [s.metadata?.step, contents(s.values)]) };
    });
    expect(out.keel).toEqual(out.langgraph);
    expect(out.keel.copyMetadataIsOwnId).toBe(true);
  });
});
