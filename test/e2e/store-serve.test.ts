/**
 * The store API against a real `keel serve` on SQLite: items written through the SDK
 * survive a restart of the server on the same database, stay per user, and the process's
 * error answers carry the stable codes.
 */
import { Client } from "@langchain/langgraph-sdk";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure } from "../plugins/gateway/store-api.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

const ENV = { KEEL_API_KEYS: "key-alice:alice,key-bob:bob" };

describe("store API on keel serve (SQLite)", () => {
  let dir: string;
  let db: string;
  let server: ServeProcess | undefined;
  const serve = async () => (server = await startServe(["--port", "0", "--db", db], { cwd: dir, env: ENV }));

  beforeAll(async () => {
    dir = tempDir("keel-store-serve-");
    db = `sqlite:${join(dir, "db", "keel.db")}`;
    await serve();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("put and search through the SDK", async () => {
    const alice = new Client({ apiUrl: server!.url, apiKey: "key-alice" });
    await alice.store.putItem(["memories", "alice"], "tide", { text: "turns at six", kind: "fact" });
    await alice.store.putItem(["memories", "alice"], "moon", { text: "is full", kind: "fact" });
    await alice.store.putItem(["memories", "alice", "drafts"], "sketch", { text: "maybe", kind: "draft" });
    expect((await alice.store.searchItems(["memories"], { filter: { kind: "fact" } })).items.map((i) => i.key).sort()).toEqual(["moon", "tide"]);
  });

  describe("after a restart on the same database", () => {
    // In a hook (60 s), not the test (30 s): a stop and a start take a while on a busy machine.
    beforeAll(async () => {
      await server!.stop();
      await serve();
    });

    it("the items are there, for their owner only", async () => {
      const aliceAgain = new Client({ apiUrl: server!.url, apiKey: "key-alice" });
      const tide = await aliceAgain.store.getItem(["memories", "alice"], "tide");
      expect(tide).toMatchObject({ namespace: ["memories", "alice"], key: "tide", value: { text: "turns at six", kind: "fact" } });
      expect(Date.parse(tide!.created_at)).not.toBeNaN();
      expect((await aliceAgain.store.listNamespaces({ prefix: ["memories"], maxDepth: 3 })).namespaces).toEqual([
        ["memories", "alice"],
        ["memories", "alice", "drafts"],
      ]);
      await aliceAgain.store.deleteItem(["memories", "alice"], "moon");
      expect(await aliceAgain.store.getItem(["memories", "alice"], "moon")).toBeNull();

      const bob = new Client({ apiUrl: server!.url, apiKey: "key-bob" });
      expect(await bob.store.getItem(["memories", "alice"], "tide")).toBeNull();
      expect((await bob.store.listNamespaces()).namespaces).toEqual([]);
    });
  });

  it("a query without an embeddings index and a bad label are 400s with their codes", async () => {
    const alice = new Client({ apiUrl: server!.url, apiKey: "key-alice" });
    expect(await failure(alice.store.searchItems(["memories"], { query: "tide" }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NO_INDEX", pointer: "/query" } });
    expect(await failure(alice.store.putItem(["a:b"], "k", {}))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace/0" } });
  });
});

describe("the item-store port on keel serve: a plugin's memory across threads, per user", () => {
  let dir: string;
  let server: ServeProcess | undefined;
  const stack = join(FIXTURES, "with-memory.stack.json");

  beforeAll(async () => {
    dir = tempDir("keel-store-port-");
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--stack", stack, "--model", `scripted:${join(FIXTURES, "memory-note.scenario.json")}`], { cwd: dir, env: ENV });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const noteRun = async (client: Client) => {
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, stack, { input: "Note it." })) as { messages: { type: string; content: string }[] };
    return { threadId: thread.thread_id, tool: values.messages.filter((m) => m.type === "tool").map((m) => JSON.parse(m.content)) };
  };

  it("the second thread's run reads what the first one's left; the user reads it over /store; another user's runs do not", async () => {
    const alice = new Client({ apiUrl: server!.url, apiKey: "key-alice" });
    const first = await noteRun(alice);
    expect(first.tool).toEqual([{ before: null }]);
    const second = await noteRun(alice);
    expect(second.tool).toEqual([{ before: { text: "tides at six", thread: first.threadId } }]);
    expect(await alice.store.getItem(["notes"], "last")).toMatchObject({ value: { text: "tides at six", thread: second.threadId } });

    const bob = new Client({ apiUrl: server!.url, apiKey: "key-bob" });
    expect((await noteRun(bob)).tool).toEqual([{ before: null }]);
  });
});
