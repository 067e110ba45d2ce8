import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";
import { startThreadsServer, type Backend, type ThreadsServer } from "./threads-api-server.js";
import { until } from "./harness.js";

/**
 * The threads API (docs/http.md, "Threads API") driven through
 * `@langchain/langgraph-sdk`'s Client against a gateway on the real run service and agent
 * loop, on memory, SQLite and PostgreSQL (skipped locally with a printed reason when
 * KEEL_TEST_PG_URL does not answer; never under CI=true).
 */
const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const pgSkip = await postgresUnavailable(PG_URL);
if (pgSkip !== null) console.warn(`skipping the threads API on PostgreSQL: ${pgSkip}`);
const BACKENDS: Backend[] = pgSkip === null ? ["memory", "sqlite", "postgres"] : ["memory", "sqlite"];

interface Refusal {
  status: number;
  body: { error: string; message: string; pointer?: string };
}

async function refused(call: Promise<unknown> | (() => Promise<unknown>)): Promise<Refusal> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    const e = error as { status?: number; text?: string };
    if (typeof e.status !== "number") throw error;
    return { status: e.status, body: JSON.parse(e.text ?? "{}") };
  }
  throw new Error("the call succeeded; a refusal was expected");
}

const human = (content: string) => ({ type: "human", content });
const contents = (values: unknown) => ((values as { messages?: { content: unknown }[] }).messages ?? []).map((m) => m.content);
const NOTE = [{ role: "user", content: "Write a note." }];

describe.each(BACKENDS)("threads API on %s", (backend) => {
  let server: ThreadsServer;
  let alice: Client;
  let bob: Client;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    let pgUrl: string | undefined;
    if (backend === "postgres") {
      const scratch = await scratchDatabase(PG_URL, "keel_threads_api");
      pgUrl = scratch.url;
      dropDatabase = scratch.drop;
    }
    server = await startThreadsServer(backend, pgUrl);
    ({ alice, bob } = server);
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await dropDatabase?.();
  });

  /** A thread with one finished run (its checkpoints are the loop's). */
  async function threadWithRun(metadata: Record<string, unknown> = {}): Promise<string> {
    const thread = await alice.threads.create({ metadata });
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE } });
    return thread.thread_id;
  }

  it("create: metadata, a given id, if_exists raise (409 naming /thread_id) and do_nothing (the owner only)", async () => {
    const threadId = `t-${randomUUID()}`;
    const created = await alice.threads.create({ threadId, metadata: { topic: "tides" } });
    expect(created).toMatchObject({ thread_id: threadId, status: "idle", metadata: { topic: "tides" }, values: {} });
    const again = await refused(alice.threads.create({ threadId, ifExists: "raise" }));
    expect(again).toMatchObject({ status: 409, body: { error: "KEEL_ERR_HTTP_THREAD_EXISTS", pointer: "/thread_id" } });
    expect(await alice.threads.create({ threadId, ifExists: "do_nothing", metadata: { topic: "other" } })).toMatchObject({ thread_id: threadId, metadata: { topic: "tides" } });
    expect((await refused(bob.threads.create({ threadId, ifExists: "do_nothing" }))).status).toBe(409);
  });

  it("create with supersteps: each superstep becomes a checkpoint, as LangGraph's bulkUpdateState writes them", async () => {
    const thread = await alice.threads.create({
      supersteps: [{ updates: [{ values: { messages: [human("first")] }, asNode: "agent" }] }, { updates: [{ values: { messages: [human("second")] }, asNode: "tools" }] }],
    });
    expect(contents(thread.values)).toEqual(["first", "second"]);
    const history = await alice.threads.getHistory(thread.thread_id, { limit: 10 });
    expect(history.map((s) => [s.metadata?.source, s.metadata?.step, contents(s.values)])).toEqual([
      ["update", 1, ["first", "second"]],
      ["update", 0, ["first"]],
    ]);
    expect(history[0]!.parent_checkpoint?.checkpoint_id).toBe(history[1]!.checkpoint.checkpoint_id);
    // The thread runs on from the supersteps' state.
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE } });
    expect(contents((await alice.threads.getState(thread.thread_id)).values).slice(0, 3)).toEqual(["first", "second", "Write a note."]);
  });

  it("create refuses a superstep writing a runtime-owned channel, a command or an unknown node (400 with the pointer) and leaves no thread", async () => {
    const threadId = `t-${randomUUID()}`;
    const owned = await refused(alice.threads.create({ threadId, supersteps: [{ updates: [{ values: { messages: [human("x")] }, asNode: "agent" }, { values: { receipts: [] }, asNode: "tools" }] }] }));
    expect(owned).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", pointer: "/supersteps/0/updates/1/values/receipts" } });
    const command = await refused(alice.threads.create({ threadId, supersteps: [{ updates: [{ values: null, command: { resume: "yes" }, asNode: "agent" }] }] }));
    expect(command).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/supersteps/0/updates/0/command" } });
    const node = await refused(alice.threads.create({ threadId, supersteps: [{ updates: [{ values: { messages: [human("x")] }, asNode: "nowhere" }] }] }));
    expect(node).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/supersteps" } });
    expect(node.body.message).toContain("nowhere");
    const graph = await refused(alice.threads.create({ threadId, graphId: "no-such-stack", supersteps: [{ updates: [{ values: { messages: [human("x")] }, asNode: "agent" }] }] }));
    expect(graph).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/metadata/graph_id" } });
    expect((await refused(alice.threads.get(threadId))).status).toBe(404);
    // The id is free: nothing of the refused creations stayed.
    expect((await alice.threads.create({ threadId })).values).toEqual({});
  });

  it("get, update (PATCH: metadata merged, not replaced) and delete; another user gets 404 for each", async () => {
    const thread = await alice.threads.create({ metadata: { a: 1, b: 2 } });
    const updated = await alice.threads.update(thread.thread_id, { metadata: { b: 3, c: 4 } });
    expect(updated.metadata).toEqual({ a: 1, b: 3, c: 4 });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(thread.updated_at));
    expect((await alice.threads.get(thread.thread_id)).metadata).toEqual({ a: 1, b: 3, c: 4 });
    for (const call of [() => bob.threads.get(thread.thread_id), () => bob.threads.update(thread.thread_id, { metadata: { x: 1 } }), () => bob.threads.delete(thread.thread_id)]) {
      expect(await refused(call)).toMatchObject({ status: 404, body: { error: "KEEL_ERR_HTTP_NOT_FOUND" } });
    }
    const noMetadata = await refused(fetch(`${server.url}/threads/${thread.thread_id}`, { method: "PATCH", headers: { "x-api-key": "key-alice", "content-type": "application/json" }, body: "{}" }).then(async (r) => {
      if (!r.ok) throw Object.assign(new Error("refused"), { status: r.status, text: await r.text() });
    }));
    expect(noMetadata).toMatchObject({ status: 400, body: { pointer: "/metadata" } });
    await alice.threads.delete(thread.thread_id);
    expect((await refused(alice.threads.get(thread.thread_id))).status).toBe(404);
  });

  it("search: metadata, status, ids, sort_by / sort_order, select, limit / offset and values", async () => {
    const tag = randomUUID();
    const a = await alice.threads.create({ threadId: `a-${tag}`, metadata: { tag, color: "red" } });
    const b = await alice.threads.create({ threadId: `b-${tag}`, metadata: { tag, color: "blue" }, supersteps: [{ updates: [{ values: { messages: [human("hello")] }, asNode: "agent" }] }] });
    const c = await alice.threads.create({ threadId: `c-${tag}`, metadata: { tag, color: "red" } });
    await alice.threads.update(a.thread_id, { metadata: { touched: true } });
    await bob.threads.create({ metadata: { tag } });
    const ids = (threads: { thread_id: string }[]) => threads.map((t) => t.thread_id);

    expect(ids(await alice.threads.search({ metadata: { tag } }))).toEqual([c.thread_id, b.thread_id, a.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag, color: "red" } }))).toEqual([c.thread_id, a.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag }, status: "idle", sortBy: "created_at", sortOrder: "asc" }))).toEqual([a.thread_id, b.thread_id, c.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag }, status: "busy" }))).toEqual([]);
    expect(ids(await alice.threads.search({ ids: [a.thread_id, c.thread_id] }))).toEqual([c.thread_id, a.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag }, sortBy: "thread_id", sortOrder: "asc", limit: 2, offset: 1 }))).toEqual([b.thread_id, c.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag }, sortBy: "updated_at", sortOrder: "desc", limit: 1 }))).toEqual([a.thread_id]);
    expect(ids(await alice.threads.search({ metadata: { tag }, values: { messages: [{ content: "hello" }] } }))).toEqual([]);
    const [withValues] = await alice.threads.search({ ids: [b.thread_id] });
    expect(ids(await alice.threads.search({ metadata: { tag }, values: { messages: (withValues!.values as { messages: unknown[] }).messages } }))).toEqual([b.thread_id]);
    const selected = await alice.threads.search({ ids: [b.thread_id], select: ["thread_id", "status"] });
    expect(selected).toEqual([{ thread_id: b.thread_id, status: "idle" }]);

    const badSort = await refused(alice.threads.search({ sortBy: "color" as never }));
    expect(badSort).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/sort_by" } });
    expect((await refused(alice.threads.search({ limit: 0 }))).body.pointer).toBe("/limit");
    expect((await refused(alice.threads.search({ select: ["secret" as never] }))).body.pointer).toBe("/select/0");
  });

  it("count: metadata, status and values, the caller's threads only", async () => {
    const tag = randomUUID();
    await alice.threads.create({ metadata: { tag, n: 1 } });
    await alice.threads.create({ metadata: { tag, n: 2 }, supersteps: [{ updates: [{ values: { messages: [human("counted")] }, asNode: "agent" }] }] });
    await bob.threads.create({ metadata: { tag } });
    expect(await alice.threads.count({ metadata: { tag } })).toBe(2);
    expect(await alice.threads.count({ metadata: { tag, n: 2 } })).toBe(1);
    expect(await alice.threads.count({ metadata: { tag }, status: "busy" })).toBe(0);
    const [counted] = await alice.threads.search({ metadata: { tag, n: 2 } });
    expect(await alice.threads.count({ metadata: { tag }, values: { messages: (counted!.values as { messages: unknown[] }).messages } })).toBe(1);
    expect(await bob.threads.count({ metadata: { tag } })).toBe(1);
  });

  it("getState at the head and at a checkpoint (by id, by address), with subgraphs; getHistory with limit, before, metadata and checkpoint", async () => {
    const threadId = await threadWithRun();
    const head = await alice.threads.getState(threadId);
    expect(contents(head.values).at(-1)).toBe("Done: note.md written.");
    expect(head.next).toEqual([]);
    expect(head.checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: "" });
    expect(head.metadata).toMatchObject({ source: "loop" });
    expect(Object.keys(head.values)).not.toContain("__keel");

    const history = await alice.threads.getHistory(threadId, { limit: 100 });
    expect(history.length).toBeGreaterThan(3);
    expect(history[0]!.checkpoint.checkpoint_id).toBe(head.checkpoint.checkpoint_id);
    // Newest first, each the child of the next.
    for (let i = 0; i + 1 < history.length; i++) expect(history[i]!.parent_checkpoint?.checkpoint_id).toBe(history[i + 1]!.checkpoint.checkpoint_id);
    expect(history.at(-1)!.metadata).toMatchObject({ source: "input" });

    const older = history[2]!;
    const byId = await alice.threads.getState(threadId, older.checkpoint.checkpoint_id!, { subgraphs: true });
    expect(byId.checkpoint.checkpoint_id).toBe(older.checkpoint.checkpoint_id);
    expect(contents(byId.values)).toEqual(contents(older.values));
    expect(contents(byId.values).length).toBeLessThan(contents(head.values).length);
    const byAddress = await alice.threads.getState(threadId, { checkpoint_id: older.checkpoint.checkpoint_id!, checkpoint_ns: "" } as never);
    expect(byAddress.checkpoint.checkpoint_id).toBe(older.checkpoint.checkpoint_id);

    expect((await alice.threads.getHistory(threadId, { limit: 2 })).map((s) => s.checkpoint.checkpoint_id)).toEqual(history.slice(0, 2).map((s) => s.checkpoint.checkpoint_id));
    const viaGet = (await (await fetch(`${server.url}/threads/${threadId}/history?limit=2&before=${history[0]!.checkpoint.checkpoint_id}`, { headers: { "x-api-key": "key-alice" } })).json()) as typeof history;
    expect(viaGet.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.slice(1, 3).map((s) => s.checkpoint.checkpoint_id));
    const before = await alice.threads.getHistory(threadId, { limit: 2, before: { configurable: { checkpoint_id: history[1]!.checkpoint.checkpoint_id } } as never });
    expect(before.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.slice(2, 4).map((s) => s.checkpoint.checkpoint_id));
    const inputs = await alice.threads.getHistory(threadId, { limit: 100, metadata: { source: "input" } });
    expect(inputs.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.filter((s) => s.metadata?.source === "input").map((s) => s.checkpoint.checkpoint_id));
    const one = await alice.threads.getHistory(threadId, { limit: 10, checkpoint: { checkpoint_id: older.checkpoint.checkpoint_id! } as never });
    expect(one.map((s) => s.checkpoint.checkpoint_id)).toEqual([older.checkpoint.checkpoint_id]);

    expect(await refused(alice.threads.getState(threadId, "1f000000-0000-6000-8000-000000000000"))).toMatchObject({ status: 404, body: { error: "KEEL_ERR_HTTP_NOT_FOUND" } });
    expect((await refused(alice.threads.getState(threadId, { checkpoint_id: older.checkpoint.checkpoint_id!, checkpoint_ns: "child" } as never))).body.pointer).toBe("/checkpoint/checkpoint_ns");
    expect((await refused(alice.threads.getHistory(threadId, { limit: 0 }))).body.pointer).toBe("/limit");
    for (const call of [() => bob.threads.getState(threadId), () => bob.threads.getHistory(threadId), () => bob.threads.getState(threadId, older.checkpoint.checkpoint_id!)]) {
      expect((await refused(call)).status).toBe(404);
    }
  });

  it("updateState: values written as the node `as_node`, from the head or from an older checkpoint (a fork); the next run continues from it", async () => {
    const threadId = await threadWithRun();
    const head = await alice.threads.getState(threadId);
    const written = await alice.threads.updateState(threadId, { values: { messages: [human("an edit")] }, asNode: "agent" });
    expect(written.checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: "" });
    const after = await alice.threads.getState(threadId);
    expect(after.checkpoint.checkpoint_id).toBe(written.checkpoint.checkpoint_id);
    expect(after.parent_checkpoint?.checkpoint_id).toBe(head.checkpoint.checkpoint_id);
    expect(after.metadata).toMatchObject({ source: "update" });
    expect(contents(after.values)).toEqual([...contents(head.values), "an edit"]);

    // A fork: the update applies to the first checkpoint's state, not the head's.
    const history = await alice.threads.getHistory(threadId, { limit: 100 });
    const first = history.at(-1)!;
    const fork = await alice.threads.updateState(threadId, { values: { messages: [human("forked")] }, asNode: "agent", checkpointId: first.checkpoint.checkpoint_id! });
    const forked = await alice.threads.getState(threadId);
    expect(forked.checkpoint.checkpoint_id).toBe(fork.checkpoint.checkpoint_id);
    expect(forked.parent_checkpoint?.checkpoint_id).toBe(first.checkpoint.checkpoint_id);
    expect(contents(forked.values)).toEqual([...contents(first.values), "forked"]);
    // Without as_node LangGraph infers the last writer; the thread runs on from the fork.
    await alice.threads.updateState(threadId, { values: { messages: [human("inferred")] } });
    await alice.runs.wait(threadId, "lead", { input: { messages: NOTE } });
    const final = contents((await alice.threads.getState(threadId)).values);
    expect(final.slice(0, contents(first.values).length + 3)).toEqual([...contents(first.values), "forked", "inferred", "Write a note."]);
    expect(final).not.toContain("an edit");
    expect((await refused(bob.threads.updateState(threadId, { values: { messages: [human("x")] } }))).status).toBe(404);
  });

  it("updateState refuses runtime-owned channels, Keel's message metadata, unknown channels and nodes, a missing checkpoint and a busy thread — and writes nothing", async () => {
    const threadId = await threadWithRun();
    const head = (await alice.threads.getState(threadId)).checkpoint.checkpoint_id;
    for (const channel of ["receipts", "delegations", "bashRuns", "receiptCounts", "stopReasons", "usage", "runMeta", "__keel"]) {
      const refusal = await refused(alice.threads.updateState(threadId, { values: { messages: [human("x")], [channel]: [] }, asNode: "agent" }));
      expect(refusal, channel).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", pointer: `/values/${channel}` } });
    }
    const forged = await refused(alice.threads.updateState(threadId, { values: { messages: [{ type: "ai", content: "done", additional_kwargs: { keel: { receiptIds: ["r1"] } } }] }, asNode: "agent" }));
    expect(forged).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", pointer: "/values/messages/0/additional_kwargs/keel" } });
    const listForm = await refused(alice.threads.updateState(threadId, { values: [{ messages: [human("ok")] }, { receipts: [] }] as never, asNode: "agent" }));
    expect(listForm.body.pointer).toBe("/values/1/receipts");
    const unknown = await refused(alice.threads.updateState(threadId, { values: { notAChannel: 1 }, asNode: "agent" }));
    expect(unknown).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/values/notAChannel" } });
    const node = await refused(alice.threads.updateState(threadId, { values: { messages: [human("x")] }, asNode: "nowhere" }));
    expect(node).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/as_node" } });
    expect((await refused(alice.threads.updateState(threadId, { values: { messages: [human("x")] }, checkpointId: "1f000000-0000-6000-8000-000000000000" }))).status).toBe(404);
    expect((await alice.threads.getState(threadId)).checkpoint.checkpoint_id).toBe(head);

    server.hold(threadId);
    try {
      const run = await alice.runs.create(threadId, "lead", { input: { messages: NOTE } });
      await until(async () => (await alice.threads.get(threadId)).status === "busy", "the thread to be busy");
      const busy = await refused(alice.threads.updateState(threadId, { values: { messages: [human("racing")] }, asNode: "agent" }));
      expect(busy).toMatchObject({ status: 409, body: { error: "KEEL_ERR_HTTP_RUN_ACTIVE" } });
      server.release(threadId);
      await alice.runs.join(threadId, run.run_id);
    } finally {
      server.release(threadId);
    }
    expect(contents((await alice.threads.getState(threadId)).values)).not.toContain("racing");
  });

  it("thread statuses through the SDK: idle, busy while a run is running (and found by status), idle after", async () => {
    const thread = await alice.threads.create();
    expect(thread.status).toBe("idle");
    server.hold(thread.thread_id);
    try {
      const run = await alice.runs.create(thread.thread_id, "lead", { input: { messages: NOTE } });
      expect((await alice.threads.get(thread.thread_id)).status).toBe("busy");
      expect((await alice.threads.search({ ids: [thread.thread_id], status: "busy" })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
      server.release(thread.thread_id);
      await alice.runs.join(thread.thread_id, run.run_id);
    } finally {
      server.release(thread.thread_id);
    }
    expect((await alice.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("patchState merges metadata into the thread's", async () => {
    const thread = await alice.threads.create({ metadata: { keep: 1 } });
    await alice.threads.patchState(thread.thread_id, { reviewed: true });
    expect((await alice.threads.get(thread.thread_id)).metadata).toEqual({ keep: 1, reviewed: true });
    expect((await refused(bob.threads.patchState(thread.thread_id, { x: 1 }))).status).toBe(404);
  });

  it("copy: a new thread of the caller with the metadata, values and every checkpoint; the two then diverge", async () => {
    const threadId = await threadWithRun({ origin: "copied" });
    const history = await alice.threads.getHistory(threadId, { limit: 100 });
    const copy = await alice.threads.copy(threadId);
    expect(copy.thread_id).not.toBe(threadId);
    expect(copy).toMatchObject({ status: "idle", metadata: { origin: "copied", thread_id: copy.thread_id } });
    expect(contents(copy.values)).toEqual(contents(history[0]!.values));
    const copied = await alice.threads.getHistory(copy.thread_id, { limit: 100 });
    expect(copied.map((s) => [s.checkpoint.checkpoint_id, s.metadata?.source, s.metadata?.step])).toEqual(history.map((s) => [s.checkpoint.checkpoint_id, s.metadata?.source, s.metadata?.step]));
    expect(copied.every((s) => s.checkpoint.thread_id === copy.thread_id)).toBe(true);

    await alice.threads.updateState(copy.thread_id, { values: { messages: [human("only in the copy")] }, asNode: "agent" });
    expect(contents((await alice.threads.getState(copy.thread_id)).values)).toContain("only in the copy");
    expect(contents((await alice.threads.getState(threadId)).values)).not.toContain("only in the copy");
    expect((await refused(bob.threads.copy(threadId))).status).toBe(404);
  });

  it("prune: keep_latest keeps only the newest checkpoint (same state), delete purges; other users' and unknown ids are not counted", async () => {
    const kept = await threadWithRun();
    const gone = await threadWithRun();
    const before = await alice.threads.getState(kept);
    expect((await alice.threads.getHistory(kept, { limit: 100 })).length).toBeGreaterThan(1);
    expect(await bob.threads.prune([kept, gone], { strategy: "keep_latest" })).toEqual({ pruned_count: 0 });
    expect(await alice.threads.prune([kept, "no-such-thread"], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
    const history = await alice.threads.getHistory(kept, { limit: 100 });
    expect(history.map((s) => s.checkpoint.checkpoint_id)).toEqual([before.checkpoint.checkpoint_id]);
    expect(history[0]!.values).toEqual(before.values);
    // The thread runs on from the kept checkpoint.
    await alice.runs.wait(kept, "lead", { input: { messages: NOTE } });
    expect(contents((await alice.threads.getState(kept)).values).slice(0, contents(before.values).length)).toEqual(contents(before.values));

    expect(await alice.threads.prune([gone])).toEqual({ pruned_count: 1 });
    expect((await refused(alice.threads.get(gone))).status).toBe(404);
    expect((await refused(alice.threads.prune([], { strategy: "delete" }))).body.pointer).toBe("/thread_ids");
    expect((await refused(alice.threads.prune([kept], { strategy: "everything" as never }))).body.pointer).toBe("/strategy");
  });
});
