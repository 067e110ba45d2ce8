import { describe, expect, it, vi } from "vitest";
import { validate } from "../../contracts/registry.js";
import { eventNames, ManualClock, managedSetups, request, storeWith, succeeded, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

const report = (text: string) => ({ contract: "run-report", version: 1, outcome: succeeded(text), events: [] as unknown[], note: text });

describe("RunManager execution and finalization", () => {
  it("streams metadata first, then the executor's events, then end; the record and report agree", async () => {
    const { manager, store, bridge, executor, ...s } = await started();
    const thread = await s.thread();
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run to start");
    const call = executor.call(run.runId);
    call.io.emit("updates", { step: 1 });
    call.io.journal({ seq: 99, at: "x", runId: "other", agent: "lead", turn: 1, kind: "model_call", status: "ok", durationMs: 3 });
    call.finish({ report: report("Done.") });

    const done = await manager.join(run.runId);
    expect(done).toMatchObject({ status: "success", outcome: succeeded() });
    const events = await bridge.read(run.runId);
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "end"]);
    expect(events[0]!.data).toEqual({ run_id: run.runId, thread_id: thread, attempt: 1 });
    expect((await store.getThread(thread))!.status).toBe("idle");

    // The journal is renumbered in arrival order and stamped with the run's id.
    const journal = await store.readJournal(run.runId);
    expect(journal.map((e) => [e.seq, e.runId, e.name ?? e.kind])).toEqual([
      [1, run.runId, "rollback_point"],
      [2, run.runId, "model_call"],
    ]);
    // The saved report carries the final outcome and the events as published, before `end`.
    const saved = (await store.getReport(run.runId)) as { outcome: unknown; events: Array<{ id: string; event: string }>; note: string };
    expect(saved.note).toBe("Done.");
    expect(saved.outcome).toEqual(done.outcome);
    expect(saved.events.map((e) => e.id)).toEqual(events.slice(0, -1).map((e) => e.id));
    for (const e of events) expect(validate("stream-event@1", e).valid).toBe(true);
  });

  it("finalizes in order: journal, report, run status, thread status, end", async () => {
    const { manager, store, bridge, executor, ...s } = await started();
    const thread = await s.thread();
    const spies = {
      journal: vi.spyOn(store, "appendJournal"),
      report: vi.spyOn(store, "saveReport"),
      run: vi.spyOn(store, "completeRun"),
      thread: vi.spyOn(store, "updateThread"),
      end: vi.spyOn(bridge, "end"),
    };
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run to start");
    executor.call(run.runId).io.journal({ seq: 1, at: "x", runId: run.runId, agent: "lead", turn: 1, kind: "tool_call", status: "ok", durationMs: 1 });
    executor.call(run.runId).finish({ report: report("ok") });
    await manager.join(run.runId);

    const last = (spy: { mock: { invocationCallOrder: number[] } }) => spy.mock.invocationCallOrder.at(-1)!;
    const order = Object.entries(spies)
      .sort(([, a], [, b]) => last(a) - last(b))
      .map(([name]) => name);
    expect(order).toEqual(["journal", "report", "run", "thread", "end"]);
    expect(spies.thread.mock.calls.at(-1)![1]).toEqual({ status: "idle" });
  });

  it("an executor that throws ends the run failed, with an error event, never a success", async () => {
    const { manager, bridge, executor, store, ...s } = await started();
    const thread = await s.thread();
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run to start");
    executor.call(run.runId).fail(new Error("model exploded"));
    const done = await manager.join(run.runId);
    expect(done.status).toBe("error");
    expect(done.outcome).toMatchObject({ status: "failed", error: { type: "executor_failed", message: "model exploded" } });
    expect(await eventNames(bridge, run.runId)).toEqual(["metadata", "error", "end"]);
    expect((await store.getThread(thread))!.status).toBe("error");
  });

  it("a lost heartbeat aborts the run and writes nothing terminal", async () => {
    const s = await started();
    const thread = await s.thread();
    const completeRun = vi.fn(s.store.completeRun.bind(s.store));
    const lossy = storeWith(s.store, { heartbeat: async () => false, completeRun });
    const manager = s.worker({ store: lossy, heartbeatMs: 5 });
    managers.push(manager);
    const run = await manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    await until(() => s.executor.call(run.runId).io.signal.aborted, "the run to be aborted");
    await until(() => s.logs.some((m) => m.includes("the lease was lost")), "the execution to give up");

    expect(completeRun).not.toHaveBeenCalled();
    expect((await s.store.getRun(run.runId))!.status).toBe("running");
    expect(await eventNames(s.bridge, run.runId)).not.toContain("end");
    expect(await s.store.getReport(run.runId)).toBeNull();
  });

  it("the reaper marks an expired lease failed (lease_expired), ends the stream and starts the next run", async () => {
    const s = await started();
    const thread = await s.thread();
    // Worker A never heartbeats within the test: it stands for a worker that died.
    const dead = s.worker({ workerId: "worker-dead", heartbeatMs: 20_000, leaseTtlMs: 30_000 });
    managers.push(dead);
    const run = await dead.createOrReject(thread, request(), { user: "alice" });
    const queued = await dead.createOrReject(thread, request("next"), { user: "alice", strategy: "enqueue" });
    await until(() => s.executor.calls.length === 1, "the run to start");

    expect(await s.manager.reapExpired()).toEqual([]);
    s.clock.advance(30_001);
    const reaped = await s.manager.reapExpired();
    expect(reaped.map((r) => r.runId)).toEqual([run.runId]);

    const done = await s.manager.join(run.runId);
    expect(done.status).toBe("error");
    expect(done.outcome).toMatchObject({
      status: "failed",
      stopReasons: [{ reason: "lease_expired", by: "run-manager" }],
      primaryStopReason: "lease_expired",
      error: { type: "lease_expired" },
    });
    expect(await eventNames(s.bridge, run.runId)).toEqual(["metadata", "error", "end"]);
    expect((await s.store.getThread(thread))!.status).not.toBe("idle");
    // The reaper's worker took over the thread's queue.
    await until(async () => (await s.store.getRun(queued.runId))!.status === "running", "the queued run to start");
    expect((await s.store.getRun(queued.runId))!.owner).toBe("worker-a");
  });

  it("CAS loss: once the reaper won, the old owner's completion is refused and nothing reads as a success", async () => {
    const s = await started();
    const thread = await s.thread();
    // The old owner's view of its lease is stale: its heartbeat "succeeds", its terminal write must not.
    // Its own clock stands still (a skewed clock), so its local lease deadline never passes and only the CAS can stop it.
    const completeRun = vi.fn(s.store.completeRun.bind(s.store));
    const stale = storeWith(s.store, { heartbeat: async () => true, completeRun });
    const old = s.worker({ workerId: "worker-old", store: stale, heartbeatMs: 20_000, clock: new ManualClock() });
    managers.push(old);
    const run = await old.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");

    s.clock.advance(30_001);
    expect((await s.manager.reapExpired()).map((r) => r.runId)).toEqual([run.runId]);
    s.executor.call(run.runId).finish({ report: report("I won?") });
    await until(() => completeRun.mock.calls.length === 1, "the old owner's terminal write");
    expect(await completeRun.mock.results[0]!.value).toBe(false);
    await until(async () => ((await s.store.getReport(run.runId)) as { outcome?: { status: string } } | null)?.outcome?.status === "failed", "the report to be corrected");

    const stored = (await s.store.getRun(run.runId))!;
    expect(stored.outcome).toMatchObject({ status: "failed", primaryStopReason: "lease_expired" });
    const events = await s.bridge.read(run.runId);
    expect(events.map((e) => e.event)).toEqual(["metadata", "error", "end"]);
    expect(events.filter((e) => e.event === "end")).toHaveLength(1);
    expect((await s.manager.join(run.runId)).status).toBe("error");
  });

  it("a live owner that keeps heartbeating is never reaped", async () => {
    const s = await started();
    const thread = await s.thread();
    const live = s.worker({ workerId: "worker-live", heartbeatMs: 5 });
    managers.push(live);
    const run = await live.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    s.clock.advance(20_000);
    const renewedUntil = new Date(s.clock.now() + 30_000).toISOString();
    await until(async () => (await s.store.getRun(run.runId))!.leaseExpiresAt === renewedUntil, "a heartbeat to renew the lease");
    s.clock.advance(20_000); // past the first lease, within the renewed one
    expect(await s.manager.reapExpired()).toEqual([]);
    s.executor.call(run.runId).finish();
    expect((await live.join(run.runId)).status).toBe("success");
  });

  it("shutdown lets runs finish within the grace period, then interrupts the rest", async () => {
    const s = await started({ shutdownGraceMs: 50 });
    await s.thread("t1");
    await s.thread("t2");
    const quick = await s.manager.createOrReject("t1", request(), { user: "alice" });
    const slow = await s.manager.createOrReject("t2", request(), { user: "alice" });
    await until(() => s.executor.calls.length === 2, "both runs to start");

    const shutdown = s.manager.shutdown();
    s.executor.call(quick.runId).finish();
    await shutdown;

    expect((await s.store.getRun(quick.runId))!.status).toBe("success");
    const interrupted = (await s.store.getRun(slow.runId))!;
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.outcome).toMatchObject({ status: "cancelled", text: "Run interrupted because the server shut down" });
    expect(await eventNames(s.bridge, slow.runId)).toEqual(["metadata", "end"]);
    // LangGraph's transition: a cancelled run leaves its thread idle (`interrupted` is a graph interrupt).
    expect((await s.store.getThread("t2"))!.status).toBe("idle");
  });
});
