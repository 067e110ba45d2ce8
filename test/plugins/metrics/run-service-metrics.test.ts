import { describe, expect, it } from "vitest";
import { createKeelMetrics, METRIC } from "../../../plugins/metrics/index.js";
import { createSqlRunStore } from "../../../plugins/store-sql/index.js";
import { START_MS, managedSetups, request, storeWith, until } from "../../runs/run-manager-harness.js";
import { sample } from "./prometheus-text.js";

const { started, managers } = managedSetups();

describe("run service metrics", () => {
  it("counts terminal statuses by who wrote them, lease expirations and reaper actions; gauges read the store at scrape time", async () => {
    const metrics = createKeelMetrics();
    const s = await started({ observer: metrics.serviceObserver });
    metrics.watch({ runCounts: () => s.manager.runCounts(), bridgeStats: () => s.bridge.stats() });
    const threadA = await s.thread("thread-a");
    const threadB = await s.thread("thread-b");

    // A run that succeeds on this worker, one still running, one queued behind it.
    const ok = await s.manager.createOrReject(threadA, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the first run to start");
    s.executor.call(ok.runId).finish();
    await s.manager.join(ok.runId);
    const running = await s.manager.createOrReject(threadA, request("two"), { user: "alice" });
    const queued = await s.manager.createOrReject(threadA, request("three"), { user: "alice", strategy: "enqueue" });
    await until(() => s.executor.calls.length === 2, "the second run to start");

    // A worker that died holding a run on another thread.
    const dead = s.worker({ workerId: "worker-dead", heartbeatMs: 20_000, observer: metrics.serviceObserver });
    managers.push(dead);
    const lost = await dead.createOrReject(threadB, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 3, "the dead worker's run to start");

    let text = await metrics.render();
    expect(sample(text, METRIC.runsRunning)).toBe(2);
    expect(sample(text, METRIC.runsPending)).toBe(1);
    expect(sample(text, METRIC.runsExecuting)).toBe(1);
    expect(sample(text, METRIC.runsFinished, { status: "success", ended_by: "worker" })).toBe(1);
    const bridge = s.bridge.stats();
    expect(sample(text, METRIC.bridgeEvents)).toBe(bridge.events);
    expect(sample(text, METRIC.bridgeRuns)).toBe(3);
    expect(bridge.events).toBe((await s.bridge.read(ok.runId)).length + (await s.bridge.read(running.runId)).length + (await s.bridge.read(lost.runId)).length);
    expect(sample(text, METRIC.bridgeBytes)).toBe(bridge.bytes);
    expect(bridge.bytes).toBeGreaterThan(0);

    // The queued run is cancelled before it started; the dead worker's lease runs out and the reaper takes its run.
    await s.manager.cancel(threadA, queued.runId);
    s.clock.advance(30_001);
    // (The live run's lease ran out too on the manual clock; it is reaped as well, and stopped locally.)
    const reaped = await s.manager.reapExpired();
    expect(reaped.map((r) => r.runId).sort()).toEqual([running.runId, lost.runId].sort());

    text = await metrics.render();
    expect(sample(text, METRIC.runsFinished, { status: "interrupted", ended_by: "cancel" })).toBe(1);
    expect(sample(text, METRIC.runsFinished, { status: "error", ended_by: "reaper" })).toBe(2);
    expect(sample(text, METRIC.leaseExpirations, { seen_by: "reaper" })).toBe(2);
    expect(sample(text, METRIC.reaperActions, { action: "sweep" })).toBe(1);
    expect(sample(text, METRIC.reaperActions, { action: "reaped" })).toBe(2);
    expect(sample(text, METRIC.reaperActions, { action: "local_abort" })).toBe(1);
    expect(sample(text, METRIC.reaperActions, { action: "skipped" })).toBeUndefined();
    expect(sample(text, METRIC.runsPending)).toBe(0);
    expect(sample(text, METRIC.runsRunning)).toBe(0);
  });

  it("an expired run whose terminal write is refused (the owner renewed in time) is `skipped`, not reaped", async () => {
    const metrics = createKeelMetrics();
    const s = await started();
    const reaper = s.worker({ workerId: "reaper", observer: metrics.serviceObserver, store: storeWith(s.store, { expireRun: async () => false }) });
    managers.push(reaper);
    const thread = await s.thread();
    await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    s.clock.advance(30_001);
    expect(await reaper.reapExpired()).toEqual([]);
    const text = await metrics.render();
    expect(sample(text, METRIC.leaseExpirations, { seen_by: "reaper" })).toBe(1);
    expect(sample(text, METRIC.reaperActions, { action: "skipped" })).toBe(1);
    expect(sample(text, METRIC.reaperActions, { action: "reaped" })).toBeUndefined();
  });

  it("an owner whose heartbeat is refused counts a lease expiration seen by the owner", async () => {
    const metrics = createKeelMetrics();
    const s = await started();
    const owner = s.worker({ workerId: "owner", heartbeatMs: 5, observer: metrics.serviceObserver, store: storeWith(s.store, { heartbeat: async () => false }) });
    managers.push(owner);
    const thread = await s.thread();
    await owner.createOrReject(thread, request(), { user: "alice" });
    await until(async () => sample(await metrics.render(), METRIC.leaseExpirations, { seen_by: "owner" }) === 1, "the refused heartbeat");
  });

  it("store-sql counts pending and running runs across threads (the gauges' source)", async () => {
    const store = await createSqlRunStore("sqlite::memory:");
    try {
      const now = new Date(START_MS).toISOString();
      for (const threadId of ["t1", "t2"]) await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
      const record = (runId: string, threadId: string) => ({ runId, threadId, assistantId: "lead", status: "pending" as const, multitaskStrategy: "enqueue" as const, epoch: 0, createdAt: now, updatedAt: now, user: "alice", request: request() });
      await store.admitRun(record("r1", "t1"));
      await store.admitRun(record("r2", "t1"));
      await store.admitRun(record("r3", "t2"));
      await store.claimNext("t1", "w", 30_000, START_MS);
      expect([await store.countRuns!("pending"), await store.countRuns!("running")]).toEqual([2, 1]);
    } finally {
      await store.close();
    }
  });

  it("every metric lives on the plugin's own Registry, not prom-client's global one", async () => {
    const { register } = await import("prom-client");
    createKeelMetrics();
    expect(await register.getSingleMetric(METRIC.runsFinished)).toBeUndefined();
  });
});
