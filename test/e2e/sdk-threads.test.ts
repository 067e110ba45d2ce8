import { join } from "node:path";
import { rmSync } from "node:fs";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

const contents = (values: unknown) => ((values as { messages?: { content: unknown }[] }).messages ?? []).map((m) => m.content);

/**
 * The threads API of a real `keel serve` process on SQLite (docs/http.md,
 * "Threads API"), through `@langchain/langgraph-sdk`'s Client: supersteps, state and
 * history on the store-sql checkpointer, a state update and a refused write to a
 * runtime-owned channel, copy, prune, search and count. Every method on every backend:
 * test/plugins/gateway/threads-api.test.ts.
 */
describe("keel serve: the threads API through the SDK", () => {
  let dir: string;
  let server: ServeProcess;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-threads-");
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], {
      cwd: dir,
      env: { KEEL_API_KEYS: "key-alice:alice,key-bob:bob" },
    });
    alice = new Client({ apiUrl: server.url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    bob = new Client({ apiUrl: server.url, apiKey: "key-bob", callerOptions: { maxRetries: 0 } });
  }, 40_000);

  afterAll(async () => {
    const exit = await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(exit?.code).toBe(0);
  });

  it("supersteps, a run, the history, a state update, copy and prune work on the server's checkpoints", async () => {
    const thread = await alice.threads.create({ metadata: { suite: "e2e-threads" }, supersteps: [{ updates: [{ values: { messages: [{ type: "human", content: "seeded" }] }, asNode: "agent" }] }] });
    expect(contents(thread.values)).toEqual(["seeded"]);
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "Write a note." }] } });
    const history = await alice.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(history.at(-1)!.metadata).toMatchObject({ source: "update", step: 0 });
    expect(contents(history[0]!.values).slice(0, 2)).toEqual(["seeded", "Write a note."]);

    const written = await alice.threads.updateState(thread.thread_id, { values: { messages: [{ type: "human", content: "edited" }] }, asNode: "agent" });
    const state = await alice.threads.getState(thread.thread_id);
    expect(state.checkpoint.checkpoint_id).toBe(written.checkpoint.checkpoint_id);
    expect(contents(state.values).at(-1)).toBe("edited");
    const earlier = await alice.threads.getState(thread.thread_id, history[0]!.checkpoint.checkpoint_id!);
    expect(contents(earlier.values)).toEqual(contents(history[0]!.values));

    let refusal: { status?: number; text?: string } = {};
    await alice.threads.updateState(thread.thread_id, { values: { receipts: [{ id: "r1", tool: "bash", status: "success" }] }, asNode: "tools" }).catch((error) => (refusal = error));
    expect(refusal.status).toBe(400);
    expect(JSON.parse(refusal.text!)).toMatchObject({ error: "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", pointer: "/values/receipts" });

    const copy = await alice.threads.copy(thread.thread_id);
    expect((await alice.threads.getHistory(copy.thread_id, { limit: 100 })).length).toBe(history.length + 1);
    expect(await alice.threads.prune([copy.thread_id], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
    const pruned = await alice.threads.getHistory(copy.thread_id, { limit: 100 });
    expect(pruned.map((s) => s.checkpoint.checkpoint_id)).toEqual([written.checkpoint.checkpoint_id]);
    expect(contents(pruned[0]!.values)).toEqual(contents(state.values));

    expect((await alice.threads.search({ metadata: { suite: "e2e-threads" }, sortBy: "created_at", sortOrder: "asc" })).map((t) => t.thread_id)).toEqual([thread.thread_id, copy.thread_id]);
    expect(await alice.threads.count({ metadata: { suite: "e2e-threads" } })).toBe(2);
    expect(await bob.threads.count({ metadata: { suite: "e2e-threads" } })).toBe(0);
    expect(await bob.threads.prune([thread.thread_id])).toEqual({ pruned_count: 0 });
    expect(await alice.threads.prune([thread.thread_id, copy.thread_id])).toEqual({ pruned_count: 2 });
    expect(await alice.threads.count({ metadata: { suite: "e2e-threads" } })).toBe(0);
  });
});
