import { describe, expect, it, vi } from "vitest";
import { isKeelError } from "../../kernel/errors.js";
import { installSignalHandlers } from "../../kernel/runs/signal-handlers.js";
import { managedSetups, eventNames, eventsOf, request, setup, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

/** Settles the promise into an observable state without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe("RunManager cancel", () => {
  it("cancels a pending run in the store: it never starts, its stream ends", async () => {
    const { manager, store, bridge, executor, ...s } = await started();
    const thread = await s.thread();
    const first = await manager.createOrReject(thread, request(), { user: "alice" });
    const queued = await manager.createOrReject(thread, request(), { user: "alice", strategy: "enqueue" });

    const cancelled = await manager.cancel(thread, queued.runId);
    expect(cancelled).toMatchObject({ status: "interrupted", outcome: { status: "cancelled" } });
    expect(await eventsOf(bridge, queued.runId)).toMatchObject([{ event: "metadata", data: { run_id: queued.runId, attempt: 0 } }, { event: "end" }]);

    await until(() => executor.calls.length === 1, "the first run to start");
    executor.call(first.runId).finish();
    await manager.join(first.runId);
    await until(async () => (await store.activeRuns(thread)).length === 0, "the thread to go quiet");
    expect(executor.calls.map((c) => c.run.runId)).toEqual([first.runId]);
  });

  it("cancels a running run owned here; with wait it resolves after end with the final record", async () => {
    const { manager, bridge, executor, ...s } = await started();
    const thread = await s.thread();
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run to start");
    const endSpy = vi.spyOn(bridge, "end");

    const done = await manager.cancel(thread, run.runId, { wait: true });
    expect(executor.call(run.runId).io.signal.aborted).toBe(true);
    expect(endSpy).toHaveBeenCalledWith(run.runId, { epoch: 1 });
    expect(done).toMatchObject({ status: "interrupted", outcome: { status: "cancelled", text: "Run cancelled on request" } });
    expect(await eventNames(bridge, run.runId)).toEqual(["metadata", "end"]);
  });

  it("cancels a run owned by another worker through a control message", async () => {
    const s = await started();
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const other = s.worker();
    managers.push(other);
    const control = vi.spyOn(s.bridge, "publishControl");

    const done = await other.cancel(thread, run.runId, { wait: true });
    expect(control).toHaveBeenCalledWith(run.runId, { type: "cancel", action: "interrupt" });
    expect(done.status).toBe("interrupted");
    expect(done.owner).toBe("worker-a");
  });

  it("a finished run is returned unchanged; a run of another thread or user is not found", async () => {
    const { manager, executor, ...s } = await started();
    const thread = await s.thread();
    await s.thread("bobs", "bob");
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run to start");
    executor.call(run.runId).finish();
    const done = await manager.join(run.runId);
    expect(await manager.cancel(thread, run.runId)).toEqual(done);
    await expect(manager.cancel("bobs", run.runId)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_NOT_FOUND" });
    await expect(manager.getRun(thread, run.runId, { user: "bob" })).rejects.toMatchObject({ code: "KEEL_ERR_RUN_NOT_FOUND" });
    await expect(manager.listRuns(thread, { user: "bob" })).rejects.toMatchObject({ code: "KEEL_ERR_THREAD_NOT_FOUND" });
    expect((await manager.listRuns(thread, { user: "alice" })).map((r) => r.runId)).toEqual([run.runId]);
  });
});

describe("RunManager join", () => {
  it("resolves only after end, with the terminal record", async () => {
    const { manager, bridge, executor, ...s } = await started();
    const thread = await s.thread();
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    const order: string[] = [];
    const end = bridge.end.bind(bridge);
    bridge.end = async (runId) => {
      order.push("end");
      return end(runId);
    };
    const joined = track(manager.join(run.runId).then((r) => (order.push("joined"), r)));
    await until(() => executor.calls.length === 1, "the run to start");
    await new Promise((resolve) => setImmediate(resolve));
    expect(joined.settled).toBe(false);

    executor.call(run.runId).finish();
    await until(() => joined.settled, "the join to settle");
    expect(order).toEqual(["end", "joined"]);
    expect(joined.value).toMatchObject({ runId: run.runId, status: "success" });
  });

  it("rejects when the caller goes away, never with a result; the run goes on", async () => {
    const { manager, executor, ...s } = await started();
    const thread = await s.thread();
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    const controller = new AbortController();
    const joined = track(manager.join(run.runId, controller.signal));
    await until(() => executor.calls.length === 1, "the run to start");
    controller.abort();
    await until(() => joined.settled, "the join to settle");
    expect(joined.value).toBeUndefined();
    expect(isKeelError(joined.error) && joined.error.code).toBe("KEEL_ERR_RUN_JOIN_ABORTED");
    expect(executor.call(run.runId).io.signal.aborted).toBe(false);

    executor.call(run.runId).finish();
    expect((await manager.join(run.runId)).status).toBe("success");
  });

  it("wait = createOrReject + join; an aborted wait leaves the run running", async () => {
    const { manager, executor, store, ...s } = await started();
    const thread = await s.thread();
    const controller = new AbortController();
    const waited = track(manager.wait(thread, request(), { user: "alice", signal: controller.signal }));
    await until(() => executor.calls.length === 1, "the run to start");
    controller.abort();
    await until(() => waited.settled, "the wait to settle");
    expect(isKeelError(waited.error) && waited.error.code).toBe("KEEL_ERR_RUN_JOIN_ABORTED");
    const runId = executor.calls[0]!.run.runId;
    expect((await store.getRun(runId))!.status).toBe("running");

    executor.call(runId).finish();
    expect((await manager.join(runId)).status).toBe("success");

    const second = track(manager.wait(thread, request("again"), { user: "alice" }));
    await until(() => executor.calls.length === 2, "the second run to start");
    expect(second.settled).toBe(false);
    executor.calls[1]!.finish();
    await until(() => second.settled, "the wait to settle");
    expect(second.value).toMatchObject({ runId: executor.calls[1]!.run.runId, status: "success", outcome: { status: "succeeded" } });
  });

  it("joins a run that finished long ago from its record", async () => {
    // The bridge drops an ended run's log when its retention timer fires; the test fires it.
    const drops: Array<() => void> = [];
    const s = await setup({}, { timers: { schedule: (fn) => (drops.push(fn), () => {}) } });
    managers.push(s.manager);
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    s.executor.call(run.runId).finish();
    await s.manager.join(run.runId);
    for (const drop of drops) drop();
    expect(await s.bridge.read(run.runId)).toEqual([]);
    expect((await s.manager.join(run.runId)).status).toBe("success");
  });
});

describe("installSignalHandlers", () => {
  it("shuts the manager down on SIGTERM, then calls afterShutdown", async () => {
    const shutdown = vi.fn(async () => {});
    const afterShutdown = vi.fn();
    const uninstall = installSignalHandlers({ shutdown }, { signals: ["SIGUSR2"], afterShutdown });
    try {
      process.emit("SIGUSR2", "SIGUSR2");
      await until(() => afterShutdown.mock.calls.length === 1, "afterShutdown");
      expect(shutdown).toHaveBeenCalledTimes(1);
    } finally {
      uninstall();
    }
    expect(process.listenerCount("SIGUSR2")).toBe(0);
  });
});
