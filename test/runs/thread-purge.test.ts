/**
 * Deleting a thread through the RunManager (kernel/runs/thread-purge.ts) over a real kernel
 * runtime and checkpointer: the mark first (reads 404, admissions refused), active runs
 * cancelled and waited for, then checkpoints (the thread's and its children's), streams
 * and store rows removed; a thread re-created with the same id starts empty.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import { closeCheckpointer, createCheckpointer } from "../../plugins/store-sql/index.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { managedSetups, request, until } from "./run-manager-harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function real(checkpointer: BaseCheckpointSaver) {
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const composition = compose({ name: "lead", plugins: [] });
  const model = new ScriptedChatModel({ script: { turns: [{ content: "first" }, { content: "second" }] } });
  const executor = createRuntimeExecutor({ runtime: createAgentRuntime(composition, { model, checkpointer }), checkpointer });
  const manager = new RunManager({ store, bridge, executor, shutdownGraceMs: 0, log: () => {} });
  cleanups.push(() => manager.shutdown());
  const thread = async () => {
    const now = new Date().toISOString();
    await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  };
  await thread();
  return { store, bridge, manager, thread };
}

const checkpointsOf = async (checkpointer: BaseCheckpointSaver, threadId: string) => {
  const found = [];
  for await (const tuple of checkpointer.list({ configurable: { thread_id: threadId } })) found.push(tuple);
  return found;
};

describe.each([
  ["MemorySaver", async () => new MemorySaver() as BaseCheckpointSaver],
  [
    "the store-sql checkpointer (SQLite)",
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "keel-purge-"));
      const checkpointer = await createCheckpointer(`sqlite:${path.join(dir, "keel.db")}`);
      cleanups.push(async () => {
        await closeCheckpointer(checkpointer);
        rmSync(dir, { recursive: true, force: true });
      });
      return checkpointer as BaseCheckpointSaver;
    },
  ],
])("deleteThread over a real runtime with %s", (_name, makeCheckpointer) => {
  it("removes the thread's and its children's checkpoints, its streams and rows; the same id re-created starts empty", async () => {
    const checkpointer = await makeCheckpointer();
    const { store, bridge, manager, thread } = await real(checkpointer);
    const done = await manager.wait("t1", request("hello"), { user: "alice" });
    expect(done.status).toBe("success");
    expect((await checkpointsOf(checkpointer, "t1")).length).toBeGreaterThan(0);
    // A child's checkpoint thread (`<thread>/<agent path>`), named by the agent of the run's journal entries.
    const parent = (await checkpointsOf(checkpointer, "t1"))[0]!;
    await checkpointer.put({ configurable: { thread_id: "t1/lead/w1", checkpoint_ns: "" } }, { ...parent.checkpoint, id: "child-1" }, parent.metadata!, {});
    await store.appendJournal(done.runId, [{ seq: 99, at: new Date().toISOString(), runId: done.runId, agent: "lead/w1", turn: 1, kind: "lifecycle", name: "start", status: "ok", durationMs: 0 }]);
    await checkpointer.put({ configurable: { thread_id: "t2", checkpoint_ns: "" } }, { ...parent.checkpoint, id: "other-1" }, parent.metadata!, {});

    const deletion = await manager.deleteThread("t1", { user: "alice" });
    expect(deletion.finished).toBe(true);
    expect(await checkpointsOf(checkpointer, "t1")).toEqual([]);
    expect(await checkpointsOf(checkpointer, "t1/lead/w1")).toEqual([]);
    expect(await checkpointsOf(checkpointer, "t2")).toHaveLength(1); // another thread keeps its own
    expect(await bridge.read(done.runId)).toEqual([]);
    expect(await store.getRun(done.runId)).toBeNull();
    expect(await store.readJournal(done.runId)).toEqual([]);
    expect(await store.deletedThreads()).toEqual([]);

    await thread();
    expect(await manager.getThreadState("t1", { user: "alice" })).toEqual({});
    expect(await manager.listRuns("t1", { user: "alice" })).toEqual([]);
    const again = await manager.wait("t1", request("again"), { user: "alice" });
    const messages = (await manager.getThreadState("t1", { user: "alice" })).messages as Array<{ content: unknown }>;
    expect(messages.map((m) => String(m.content))).toEqual(["again", "second"]); // no "hello"/"first" from before
    expect(again.status).toBe("success");
  });
});

describe("deleteThread with the run manager's fake executor", () => {
  const { started } = managedSetups();

  it("marks first (reads answer not found at once), cancels a running and a pending run, and resolves only after they ended", async () => {
    const s = await started();
    await s.thread("t1");
    // The executor keeps running after the abort until finished: deletion waits for it.
    s.executor.ignoreAbort = true;
    const running = await s.manager.createOrReject("t1", request("a"), { user: "alice" });
    const pending = await s.manager.createOrReject("t1", request("b"), { user: "alice", strategy: "enqueue" });
    await until(() => s.executor.calls.length === 1, "the first run started");

    let settled = false;
    const deleting = s.manager.deleteThread("t1", { user: "alice" }).then((d) => ((settled = true), d));
    await until(async () => (await s.store.getThread("t1")) === null, "the mark");
    await expect(s.manager.getThreadState("t1", { user: "alice" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
    await expect(s.manager.createOrReject("t1", request("c"), { user: "alice", strategy: "enqueue" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
    await until(() => s.executor.call(running.runId).io.signal.aborted, "the running run was aborted");
    expect((await s.store.getRun(pending.runId))?.status).toBe("interrupted");
    expect((await s.store.getRun(pending.runId))?.outcome?.error?.message).toContain("its thread is being deleted");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    expect(await s.store.getRun(running.runId)).not.toBeNull();

    s.executor.call(running.runId).finish();
    const deletion = await deleting;
    expect(deletion.finished).toBe(true);
    expect(await s.store.getRun(running.runId)).toBeNull();
    expect(await s.store.getRun(pending.runId)).toBeNull();
    expect(await s.bridge.read(running.runId)).toEqual([]);
    expect(s.executor.calls).toHaveLength(1); // the pending run never started
  });

  it("answers `finished: false` after waitMs and finishes the purge in the background", async () => {
    const s = await started();
    await s.thread("t1");
    s.executor.ignoreAbort = true;
    const run = await s.manager.createOrReject("t1", request("a"), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run started");
    const deletion = await s.manager.deleteThread("t1", { user: "alice", waitMs: 20 });
    expect(deletion.finished).toBe(false);
    expect(await s.store.getThread("t1")).toBeNull();
    expect(await s.store.getRun(run.runId)).not.toBeNull(); // not purged under a live run
    s.executor.call(run.runId).finish();
    await deletion.done;
    expect(await s.store.getRun(run.runId)).toBeNull();
    expect(await s.store.deletedThreads()).toEqual([]);
  });

  it("refuses a second delete, another user's and a missing thread with THREAD_NOT_FOUND", async () => {
    const s = await started();
    await s.thread("t1");
    await expect(s.manager.deleteThread("t1", { user: "bob" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
    await expect(s.manager.deleteThread("nope", { user: "alice" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
    expect((await s.manager.deleteThread("t1", { user: "alice" })).finished).toBe(true);
    await expect(s.manager.deleteThread("t1", { user: "alice" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
  });

  it("a purge interrupted by a store failure keeps the mark, and the sweep (resumePurges) finishes it", async () => {
    const s = await started();
    await s.thread("t1");
    const run = await s.manager.createOrReject("t1", request("a"), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run started");
    s.executor.call(run.runId).finish();
    await s.manager.join(run.runId);
    const deleteThread = s.store.deleteThread.bind(s.store);
    let fail = true;
    s.store.deleteThread = async (threadId: string) => {
      if (fail) throw new Error("store down");
      return deleteThread(threadId);
    };
    const deletion = await s.manager.deleteThread("t1", { user: "alice" });
    expect(deletion.finished).toBe(true); // the purge settled (with a logged failure)
    expect(s.logs.some((l) => l.includes("the purge failed"))).toBe(true);
    expect(await s.store.deletedThreads()).toEqual(["t1"]);
    expect(await s.store.getThread("t1")).toBeNull();
    fail = false;
    expect((await s.manager.recoverOnce()).purges).toBe(1);
    expect(await s.store.deletedThreads()).toEqual([]);
  });
});
