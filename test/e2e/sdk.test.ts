import { existsSync, mkdirSync, writeFileSync, rmSync, unlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runServeToExit, startServe, tempDir, type ServeProcess } from "./serve-process.js";

/** better-sqlite3 (the store's driver; no type declarations installed): a read-only look at the server's checkpoint tables. */
const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string, options: { readonly: boolean }) => { prepare(sql: string): { get(...params: unknown[]): unknown }; close(): void };

/**
 * A real `keel serve` process (SQLite in a temp dir, a scripted model, real bash in the
 * thread workspaces) driven by `@langchain/langgraph-sdk`'s Client, unchanged.
 * A run blocks in its first bash call while the thread's workspace holds a file `hold`.
 */
describe("keel serve with @langchain/langgraph-sdk", () => {
  let dir: string;
  let server: ServeProcess;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-sdk-");
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "db", "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], {
      cwd: dir,
      env: { KEEL_API_KEYS: "key-alice:alice,key-bob:bob" },
    });
    // Never retry inside the test: a refused request must surface as its status.
    alice = new Client({ apiUrl: server.url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    bob = new Client({ apiUrl: server.url, apiKey: "key-bob", callerOptions: { maxRetries: 0 } });
  }, 40_000);

  afterAll(async () => {
    const exit = await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
    // Graceful shutdown on SIGTERM: exit code 0.
    expect(exit?.code).toBe(0);
  });

  // Workspaces live beside the --db file (PATH.workspaces).
  const holdFile = (threadId: string) => join(dir, "db", "keel.db.workspaces", threadId, "hold");
  const hold = (threadId: string) => {
    mkdirSync(join(dir, "db", "keel.db.workspaces", threadId), { recursive: true });
    writeFileSync(holdFile(threadId), "");
  };

  it("lists the stacks as assistants", async () => {
    const assistants = await alice.assistants.search();
    expect(assistants.map((a) => a.assistant_id)).toEqual(["lead"]);
    expect(assistants[0]).toMatchObject({ graph_id: "lead", name: "lead" });
  });

  it("streams model tokens as messages-tuple events when asked", async () => {
    const thread = await alice.threads.create();
    const parts: { event: string; data: unknown }[] = [];
    for await (const part of alice.runs.stream(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "Write a note." }] }, streamMode: "messages-tuple" })) {
      parts.push(part as { event: string; data: unknown });
    }
    const tuples = parts.filter((p) => p.event === "messages").map((p) => p.data as [Record<string, unknown>, Record<string, unknown>]);
    expect(tuples.length).toBeGreaterThan(0);
    expect(tuples[0]![0]).toMatchObject({ type: "AIMessageChunk" });
    expect(tuples[0]![1]).toMatchObject({ langgraph_node: "agent", agent: "lead", turn: 1 });
    expect(parts.some((p) => p.event === "values" || p.event === "custom")).toBe(false);
  });

  it("creates a thread, streams a run, rejoins it with lastEventId, waits, reads state and runs", async () => {
    const thread = await alice.threads.create({ metadata: { case: "sdk" } });
    expect(thread.thread_id).toBeTruthy();
    expect(thread.metadata).toMatchObject({ case: "sdk" });

    let created: { run_id: string; thread_id?: string } | undefined;
    const parts: { event: string; data: unknown; id?: string }[] = [];
    for await (const part of alice.runs.stream(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "Write a note." }] }, onRunCreated: (meta) => (created = meta) })) {
      parts.push(part as { event: string; data: unknown; id?: string });
    }
    expect(parts[0]!.event).toBe("metadata");
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    expect(created?.run_id).toBe(runId);
    expect(parts.at(-1)!.event).toBe("end");
    const values = parts.filter((p) => p.event === "values").at(-1)!.data as { messages: { type: string; content: string }[] };
    expect(values.messages.at(-1)).toMatchObject({ type: "ai", content: "Done: note.md written." });
    expect(parts.every((p) => typeof p.id === "string" && /^\d+-\d+$/.test(p.id))).toBe(true);

    // Reconnect after the third event: exactly the rest comes back.
    const rest: { id?: string; event: string }[] = [];
    for await (const part of alice.runs.joinStream(thread.thread_id, runId, { lastEventId: parts[2]!.id! })) rest.push(part as { id?: string; event: string });
    expect(rest.map((p) => p.id)).toEqual(parts.slice(3).map((p) => p.id));

    const run = await alice.runs.get(thread.thread_id, runId);
    expect(run).toMatchObject({ run_id: runId, thread_id: thread.thread_id, assistant_id: "lead", status: "success", multitask_strategy: "reject" });
    expect((run as unknown as { outcome: { status: string } }).outcome.status).toBe("succeeded");

    const waited = (await alice.runs.wait(thread.thread_id, "lead", { input: "Once more." })) as { messages: { content: string }[] };
    expect(waited.messages.at(-1)!.content).toBe("Done: note.md written.");

    const state = await alice.threads.getState(thread.thread_id);
    expect(state.checkpoint.thread_id).toBe(thread.thread_id);
    expect((state.values as { messages: unknown[] }).messages.length).toBeGreaterThan(3);
    expect(state.next).toEqual([]);

    const runs = await alice.runs.list(thread.thread_id);
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.status === "success")).toBe(true);
  });

  it("rejects a second run with 409 while one is active, cancels it, and reports it interrupted", async () => {
    const thread = await alice.threads.create();
    hold(thread.thread_id);
    const run = await alice.runs.create(thread.thread_id, "lead", { input: "Wait for me." });
    expect(["pending", "running"]).toContain(run.status);

    await expect(alice.runs.create(thread.thread_id, "lead", { input: "Me too." })).rejects.toMatchObject({ status: 409 });

    await alice.runs.cancel(thread.thread_id, run.run_id, true);
    const cancelled = await alice.runs.get(thread.thread_id, run.run_id);
    expect(cancelled.status).toBe("interrupted");
    expect((cancelled as unknown as { outcome: { status: string } }).outcome.status).toBe("cancelled");

    // The thread takes runs again.
    unlinkSync(holdFile(thread.thread_id));
    const next = (await alice.runs.wait(thread.thread_id, "lead", { input: "Now." })) as { messages: { content: string }[] };
    expect(next.messages.at(-1)!.content).toBe("Done: note.md written.");
  });

  it("rollback: a newer run cancels the active one and restores the thread's state before it", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: "First." });
    const before = (await alice.threads.getState(thread.thread_id)).values as { messages: { id: string }[] };
    hold(thread.thread_id);
    const doomed = await alice.runs.create(thread.thread_id, "lead", { input: "Undo me." });
    // Wait until it has written to the thread (its input and first answer are checkpointed).
    let wrote = false;
    for (let i = 0; i < 400 && !wrote; i++) {
      const messages = ((await alice.threads.getState(thread.thread_id)).values as { messages: { content: unknown }[] }).messages;
      wrote = messages.some((m) => m.content === "Undo me.") && messages.length > before.messages.length + 1;
      if (!wrote) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(wrote).toBe(true);
    const replacement = await alice.runs.create(thread.thread_id, "lead", { input: "Instead.", multitaskStrategy: "rollback" });
    await alice.runs.join(thread.thread_id, doomed.run_id);
    // Rolled back: gone from runs.get as in LangGraph; its report stays readable by id (audit).
    await expect(alice.runs.get(thread.thread_id, doomed.run_id)).rejects.toMatchObject({ status: 404 });
    const report = await fetch(`${server.url}/threads/${thread.thread_id}/runs/${doomed.run_id}/report?version=1`, { headers: { "x-api-key": "key-alice" } });
    expect(((await report.json()) as { outcome: { status: string } }).outcome.status).toBe("cancelled");
    unlinkSync(holdFile(thread.thread_id));
    await alice.runs.join(thread.thread_id, replacement.run_id);
    expect((await alice.runs.get(thread.thread_id, replacement.run_id)).status).toBe("success");
    const after = ((await alice.threads.getState(thread.thread_id)).values as { messages: { id: string; content: unknown }[] }).messages;
    // The first run's messages are all there; nothing of the rolled-back run is.
    expect(after.slice(0, before.messages.length).map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
    expect(after.some((m) => m.id.startsWith(doomed.run_id) || m.content === "Undo me.")).toBe(false);
    expect(after.some((m) => m.content === "Instead.")).toBe(true);
  });

  it("another user's key gets 404 for the thread and its runs", async () => {
    const thread = await alice.threads.create();
    const run = await alice.runs.create(thread.thread_id, "lead", { input: "Mine." });
    await alice.runs.join(thread.thread_id, run.run_id);
    await expect(bob.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.threads.getState(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.runs.get(thread.thread_id, run.run_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.runs.list(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.runs.create(thread.thread_id, "lead", { input: "Not yours." })).rejects.toMatchObject({ status: 404 });
    expect(await bob.threads.search()).toEqual([]);
    const anonymous = new Client({ apiUrl: server.url, apiKey: null, callerOptions: { maxRetries: 0 } });
    await expect(anonymous.threads.create()).rejects.toMatchObject({ status: 401 });
  });

  it("deleting a thread purges its checkpoints, files and runs; the id re-created by another user starts empty", async () => {
    const threadId = `e2e-delete-${Date.now()}`;
    await alice.threads.create({ threadId });
    const first = await alice.runs.create(threadId, "lead", { input: "Write a note." });
    await alice.runs.join(threadId, first.run_id);
    const workspace = join(dir, "db", "keel.db.workspaces", threadId);
    expect(existsSync(join(workspace, "note.md"))).toBe(true);
    const writeLog = join(dir, "db", "keel.db.workspaces", ".keel-write-log", `${threadId}.jsonl`);
    expect(existsSync(writeLog)).toBe(true);
    const db = new Database(join(dir, "db", "keel.db"), { readonly: true });
    const checkpoints = () => (db.prepare("SELECT count(*) AS n FROM keel_ckpt_checkpoints WHERE thread_id = ? OR thread_id LIKE ?").get(threadId, `${threadId}/%`) as { n: number }).n;
    try {
      expect(checkpoints()).toBeGreaterThan(0);
      await expect(bob.threads.create({ threadId })).rejects.toMatchObject({ status: 409 });
      await expect(bob.threads.delete(threadId)).rejects.toMatchObject({ status: 404 });

      await alice.threads.delete(threadId);
      await expect(alice.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
      await expect(alice.runs.get(threadId, first.run_id)).rejects.toMatchObject({ status: 404 });
      expect(checkpoints()).toBe(0);
      expect(existsSync(workspace)).toBe(false);
      expect(existsSync(writeLog)).toBe(false);

      const reborn = await bob.threads.create({ threadId });
      expect(reborn.thread_id).toBe(threadId);
      expect(await bob.runs.list(threadId)).toEqual([]);
      const state = await bob.threads.getState(threadId);
      expect((state.values as { messages?: unknown[] }).messages ?? []).toEqual([]);
      expect(existsSync(join(workspace, "note.md"))).toBe(false);
    } finally {
      db.close();
    }
  });

  it("refuses to bind a non-loopback host without API keys (exit 2)", async () => {
    const { code, stderr, stdout } = await runServeToExit(["--host", "0.0.0.0", "--port", "0"], { cwd: dir, env: { KEEL_API_KEYS: "" } });
    expect(code).toBe(2);
    expect(stderr).toMatch(/KEEL_ERR_SERVE_CONFIG: refusing to bind `0\.0\.0\.0` without API keys/);
    expect(stdout).toBe("");
  });
});
