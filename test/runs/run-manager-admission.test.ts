import { describe, expect, it } from "vitest";
import { isKeelError } from "../../kernel/errors.js";
import type { RunManager } from "../../kernel/runs/run-manager.js";
import { builtinRuntimeOwnedKeys } from "./builtin-owned-keys.js";
import { managedSetups, request, storeWith, until, type Setup } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isKeelError(error)) return error.code;
    throw error;
  }
  throw new Error("expected a KeelError, but the call succeeded");
}

describe("RunManager admission", () => {
  it("persists the run before returning it and starts it on this worker", async () => {
    const { manager, store, executor } = await started();
    const thread = await setupThread(manager, store);
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    expect(run.status).toBe("running");
    expect(run.owner).toBe("worker-a");
    expect(await store.getRun(run.runId)).toMatchObject({ runId: run.runId, status: "running", user: "alice", multitaskStrategy: "reject" });
    await until(() => executor.calls.length === 1, "the executor to be called");
    expect(executor.calls[0]!.run.runId).toBe(run.runId);
  });

  it("shows nothing when persisting fails", async () => {
    const s = await started();
    const thread = await s.thread();
    const failing = storeWith(s.store, {
      admitRun: async () => {
        throw new Error("disk full");
      },
    });
    const manager = s.worker({ store: failing });
    managers.push(manager);
    await expect(manager.createOrReject(thread, request(), { user: "alice" })).rejects.toThrow("disk full");
    expect(await s.store.listRuns(thread, { limit: 10, offset: 0 })).toEqual([]);
    expect(s.executor.calls).toHaveLength(0);
  });

  it("reject: a second run on a busy thread is a conflict and changes nothing", async () => {
    const { manager, store, executor } = await started();
    const thread = await setupThread(manager, store);
    const first = await manager.createOrReject(thread, request(), { user: "alice" });
    expect(await codeOf(manager.createOrReject(thread, request(), { user: "alice" }))).toBe("KEEL_ERR_RUN_CONFLICT");
    expect((await store.listRuns(thread, { limit: 10, offset: 0 })).map((r) => r.runId)).toEqual([first.runId]);
    await until(() => executor.calls.length === 1, "the first run to start");
    expect(executor.calls[0]!.io.signal.aborted).toBe(false);
  });

  it("interrupt: the active run is cancelled keeping its progress, then the new run starts", async () => {
    const { manager, store, executor } = await started();
    const thread = await setupThread(manager, store);
    const first = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the first run to start");
    const second = await manager.createOrReject(thread, request("again"), { user: "alice", strategy: "interrupt" });
    expect(second.status).toBe("pending");

    const done = await manager.join(first.runId);
    expect(done.status).toBe("interrupted");
    expect(done.outcome).toMatchObject({ status: "cancelled", error: { type: "KEEL_ERR_RUN_CANCELLED" } });
    expect(done.outcome!.text).toContain("multitask strategy `interrupt`");
    expect(executor.events.some((e) => e.startsWith("restore:"))).toBe(false);

    await until(() => executor.calls.length === 2, "the second run to start");
    expect(executor.calls[1]!.run.runId).toBe(second.runId);
  });

  it("rollback: the active run is cancelled and its pre-run state restored before its terminal write", async () => {
    const { manager, store, executor } = await started();
    const thread = await setupThread(manager, store);
    const first = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the first run to start");
    const second = await manager.createOrReject(thread, request("redo"), { user: "alice", strategy: "rollback" });

    const done = await manager.join(first.runId);
    expect(done.status).toBe("interrupted");
    expect(done.outcome!.text).toContain("restored to their state before the run");
    await until(() => executor.events.length === 4, "the second run to capture its rollback point");
    expect(executor.events).toEqual([`capture:${thread}`, `restore:${thread}`, `release:${thread}`, `capture:${thread}`]);
    const journal = await store.readJournal(first.runId);
    expect(journal.map((e) => `${e.name}:${e.status}`)).toEqual(["rollback_point:captured", "rollback:restored"]);

    await until(() => executor.calls.length === 2, "the second run to start");
    expect(executor.calls[1]!.run.runId).toBe(second.runId);
  });

  it("rollback without a rollback point: 409 before anything changes", async () => {
    const { manager, store, executor } = await started();
    executor.rollback = "unavailable";
    const thread = await setupThread(manager, store);
    const first = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the first run to start");

    expect(await codeOf(manager.createOrReject(thread, request("redo"), { user: "alice", strategy: "rollback" }))).toBe("KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE");
    expect((await store.listRuns(thread, { limit: 10, offset: 0 })).map((r) => r.runId)).toEqual([first.runId]);
    expect((await store.getRun(first.runId))!.status).toBe("running");
    expect(executor.calls[0]!.io.signal.aborted).toBe(false);
    expect(await codeOf(manager.cancel(thread, first.runId, { action: "rollback" }))).toBe("KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE");
    expect(executor.calls[0]!.io.signal.aborted).toBe(false);
  });

  it("rollback of a run owned by another worker: availability is read from its journal", async () => {
    const s = await started();
    const thread = await s.thread();
    const first = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the first run to start");
    const other = s.worker();
    managers.push(other);

    s.executor.rollback = "unavailable"; // affects only captures from now on; run 1 has its point
    await other.createOrReject(thread, request("redo"), { user: "alice", strategy: "rollback" });
    const done = await other.join(first.runId);
    expect(done.outcome!.text).toContain("restored");
    expect(s.executor.events).toContain(`restore:${thread}`);
  });

  it("enqueue: runs wait behind the active one and start in creation order", async () => {
    const { manager, store, executor } = await started();
    const thread = await setupThread(manager, store);
    const first = await manager.createOrReject(thread, request("1"), { user: "alice" });
    const second = await manager.createOrReject(thread, request("2"), { user: "alice", strategy: "enqueue" });
    const third = await manager.createOrReject(thread, request("3"), { user: "alice", strategy: "enqueue" });
    expect([second.status, third.status]).toEqual(["pending", "pending"]);
    await until(() => executor.calls.length === 1, "the first run to start");

    executor.call(first.runId).finish();
    await until(() => executor.calls.length === 2, "the second run to start");
    expect(executor.calls[1]!.run.runId).toBe(second.runId);
    expect((await store.getRun(third.runId))!.status).toBe("pending");

    executor.call(second.runId).finish();
    await until(() => executor.calls.length === 3, "the third run to start");
    expect(executor.calls[2]!.run.runId).toBe(third.runId);
    executor.call(third.runId).finish();
    expect((await manager.join(third.runId)).status).toBe("success");
  });

  it("the thread must exist and belong to the user", async () => {
    const { manager, store } = await started();
    const thread = await setupThread(manager, store);
    expect(await codeOf(manager.createOrReject(thread, request(), { user: "mallory" }))).toBe("KEEL_ERR_THREAD_NOT_FOUND");
    expect(await codeOf(manager.createOrReject("no-such-thread", request(), { user: "alice" }))).toBe("KEEL_ERR_THREAD_NOT_FOUND");
    expect(await store.listRuns(thread, { limit: 10, offset: 0 })).toEqual([]);
  });

  it("limits active runs per user across threads", async () => {
    const s = await started({ maxActiveRunsPerUser: 2 });
    for (const t of ["t1", "t2", "t3"]) await s.thread(t);
    await s.thread("b1", "bob");
    await s.manager.createOrReject("t1", request(), { user: "alice" });
    await s.manager.createOrReject("t2", request(), { user: "alice" });
    expect(await codeOf(s.manager.createOrReject("t3", request(), { user: "alice" }))).toBe("KEEL_ERR_RUN_LIMIT");
    expect(await s.store.listRuns("t3", { limit: 10, offset: 0 })).toEqual([]);
    expect((await s.manager.createOrReject("b1", request(), { user: "bob" })).status).toBe("running");
    // Interrupting one's own active run does not count it twice.
    expect((await s.manager.createOrReject("t1", request(), { user: "alice", strategy: "interrupt" })).status).toBe("pending");
  });

  it("cleans the request before persisting it and before the executor sees it", async () => {
    const { manager, store, executor } = await started({ maxTurns: 50, runtimeOwnedKeys: await builtinRuntimeOwnedKeys() });
    const thread = await setupThread(manager, store);
    const dirty = request(
      { messages: [{ role: "user", content: "hi", additional_kwargs: { keel: { hidden: true }, other: 1 }, __secret: 1 }], receipts: [{ forged: true }] },
      {
        maxTurns: 10_000,
        config: { recursion_limit: 9_999, configurable: { thread_id: "elsewhere", model: "m", __pregel_x: 1 } },
        metadata: { receiptVerdict: "pass", nested: { acceptanceVerdict: "pass", keep: 1 }, __proto_like: 1 },
        context: { __hidden: true, ok: true },
      },
    );
    const run = await manager.createOrReject(thread, dirty, { user: "alice" });
    const stored = (await store.getRun(run.runId))!.request;
    expect(stored).toEqual({
      assistantId: "lead",
      input: { messages: [{ role: "user", content: "hi", additional_kwargs: { other: 1 } }] },
      maxTurns: 50,
      config: { recursion_limit: 110, configurable: { model: "m" } },
      metadata: { nested: { keep: 1 } },
      context: { ok: true },
    });
    await until(() => executor.calls.length === 1, "the run to start");
    expect(executor.calls[0]!.run.request).toEqual(stored);
  });

  it("refuses new runs once shutting down", async () => {
    const { manager, store } = await started();
    const thread = await setupThread(manager, store);
    await manager.shutdown();
    expect(await codeOf(manager.createOrReject(thread, request(), { user: "alice" }))).toBe("KEEL_ERR_RUN_SHUTTING_DOWN");
  });
});

async function setupThread(_manager: RunManager, store: Setup["store"], threadId = "thread-1"): Promise<string> {
  const now = new Date().toISOString();
  await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  return threadId;
}
