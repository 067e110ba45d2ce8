/**
 * RunManagers on one claim queue, on every store (memory, SQLite, PostgreSQL): `jobs`
 * bounds what one worker takes, managers on one store split the work, and runs left
 * pending by a worker that shut down or died are claimed and finished by another.
 * Managers claim explicitly (`claimPending()`) unless a test is about the poll, so
 * nothing depends on timing; waits are condition waits.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager, type RunManagerOptions } from "../../kernel/runs/run-manager.js";
import type { RunRecord, RunStore } from "../../kernel/runs/types.js";
import { FakeExecutor, ManualClock, request, until } from "./run-manager-harness.js";

/** Two stores on one new, empty database (for memory: one instance twice). */
export type MakeStorePair = () => Promise<{ stores: [RunStore, RunStore]; dispose: () => Promise<void> }>;

export function describeClaimQueueManagers(name: string, makeStores: MakeStorePair): void {
  describe(`the claim queue across RunManagers: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function cluster() {
      const { stores, dispose } = await makeStores();
      const bridge = new MemoryStreamBridge();
      const executor = new FakeExecutor();
      const clock = new ManualClock();
      const managers: RunManager[] = [];
      cleanups.push(async () => {
        await Promise.all(managers.map((m) => m.shutdown()));
        await dispose();
      });
      let ids = 0;
      const worker = (workerId: string, store: RunStore, options: Partial<RunManagerOptions> = {}) => {
        const manager = new RunManager({
          store, bridge, executor, clock, workerId,
          leaseTtlMs: 30_000, heartbeatMs: 10_000, shutdownGraceMs: 0,
          newRunId: () => `run-${++ids}`,
          log: () => undefined,
          ...options,
        });
        managers.push(manager);
        return manager;
      };
      const threads = async (count: number) => {
        const now = new Date(clock.now()).toISOString();
        const made: string[] = [];
        for (let i = 0; i < count; i++) {
          const threadId = `thread-${i + 1}`;
          await stores[0].createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
          made.push(threadId);
        }
        return made;
      };
      const statuses = async (runs: RunRecord[]) => Promise.all(runs.map(async (r) => (await stores[0].getRun(r.runId))!.status));
      const executing = () => executor.calls.filter((c) => !finished.has(c.run.runId));
      const finished = new Set<string>();
      /** Finish the run once the executor has it (a claimed run reaches the executor a few turns later). */
      const finish = async (runId: string) => {
        await until(() => executor.calls.some((call) => call.run.runId === runId), `run ${runId} to reach the executor`);
        finished.add(runId);
        executor.call(runId).finish();
      };
      return { stores, bridge, executor, clock, worker, threads, statuses, executing, finish, finishedCount: () => finished.size };
    }

    it("with jobs 2, five runs on five threads: at most two run at once, and all five finish", async () => {
      const c = await cluster();
      const manager = c.worker("worker-a", c.stores[0], { jobs: 2 });
      const runs: RunRecord[] = [];
      for (const thread of await c.threads(5)) runs.push(await manager.createOrReject(thread, request(), { user: "alice" }));
      expect(runs.map((r) => r.status)).toEqual(["running", "running", "pending", "pending", "pending"]);

      let peak = 0;
      while (c.finishedCount() < 5) {
        await manager.claimPending();
        // Exactly min(2, left) execute: a third claim would make this wait fail.
        await until(() => c.executing().length === Math.min(2, 5 - c.finishedCount()), "the free slots to fill");
        peak = Math.max(peak, c.executing().length, await c.stores[0].countRuns!("running"));
        const next = c.executing()[0]!.run.runId;
        await c.finish(next);
        await manager.join(next);
      }
      await Promise.all(runs.map((r) => manager.join(r.runId)));
      expect(peak).toBe(2);
      expect(await c.statuses(runs)).toEqual(["success", "success", "success", "success", "success"]);
      // Queue order: the runs started in admission order.
      expect(c.executor.calls.map((call) => call.run.runId)).toEqual(runs.map((r) => r.runId));
    });

    it("two managers on one store split the work, each up to its jobs", async () => {
      const c = await cluster();
      const a = c.worker("worker-a", c.stores[0], { jobs: 2 });
      const b = c.worker("worker-b", c.stores[1], { jobs: 2 });
      const runs: RunRecord[] = [];
      for (const thread of await c.threads(5)) runs.push(await a.createOrReject(thread, request(), { user: "alice" }));
      expect((await b.claimPending()).map((r) => r.runId)).toEqual([runs[2]!.runId, runs[3]!.runId]);
      expect(await a.claimPending()).toEqual([]); // both full: the fifth waits
      const owners = async () => Promise.all(runs.map(async (r) => (await c.stores[0].getRun(r.runId))!.owner ?? null));
      expect(await owners()).toEqual(["worker-a", "worker-a", "worker-b", "worker-b", null]);

      await c.finish(runs[2]!.runId); // a slot of b frees: b takes the fifth
      await b.join(runs[2]!.runId);
      await until(async () => (await c.stores[0].getRun(runs[4]!.runId))!.status === "running", "the fifth run to start");
      expect((await c.stores[0].getRun(runs[4]!.runId))!.owner).toBe("worker-b");
      for (const r of [0, 1, 3, 4]) await c.finish(runs[r]!.runId);
      await Promise.all(runs.map((r) => a.join(r.runId)));
      expect(await c.statuses(runs)).toEqual(["success", "success", "success", "success", "success"]);
    });

    it("runs left pending by a graceful shutdown are claimed and finished by another manager", async () => {
      const c = await cluster();
      const a = c.worker("worker-a", c.stores[0], { jobs: 1 });
      const runs: RunRecord[] = [];
      for (const thread of await c.threads(3)) runs.push(await a.createOrReject(thread, request(), { user: "alice" }));
      await a.shutdown(); // the running run is interrupted; the pending ones stay pending
      expect(await c.statuses(runs)).toEqual(["interrupted", "pending", "pending"]);
      expect(await a.claimPending()).toEqual([]);

      const b = c.worker("worker-b", c.stores[1]);
      expect((await b.claimPending()).map((r) => r.runId)).toEqual([runs[1]!.runId, runs[2]!.runId]);
      await c.finish(runs[1]!.runId);
      await c.finish(runs[2]!.runId);
      await Promise.all(runs.map((r) => b.join(r.runId)));
      expect(await c.statuses(runs)).toEqual(["interrupted", "success", "success"]);
    });

    it("the poll of a started manager picks up pending runs nobody started", async () => {
      const c = await cluster();
      const a = c.worker("worker-a", c.stores[0], { jobs: 1 });
      const runs: RunRecord[] = [];
      for (const thread of await c.threads(2)) runs.push(await a.createOrReject(thread, request(), { user: "alice" }));
      expect(runs.map((r) => r.status)).toEqual(["running", "pending"]);
      const b = c.worker("worker-b", c.stores[1], { claimPollMs: 10 });
      b.start();
      await until(async () => (await c.stores[0].getRun(runs[1]!.runId))!.owner === "worker-b", "worker b's poll to claim the pending run");
      for (const r of runs) await c.finish(r.runId);
      await Promise.all(runs.map((r) => a.join(r.runId)));
      expect(await c.statuses(runs)).toEqual(["success", "success"]);
    });

    it("a dead worker's pending runs are claimed once its lease expired", async () => {
      const c = await cluster();
      // Worker a claims a run and then goes silent (no heartbeat reaches the store within the test).
      const a = c.worker("worker-a", c.stores[0], { jobs: 1 });
      const [t1, t2] = await c.threads(2);
      const r1 = await a.createOrReject(t1!, request(), { user: "alice" });
      const r2 = await a.createOrReject(t1!, request("queued"), { user: "alice", strategy: "enqueue" });
      const r3 = await a.createOrReject(t2!, request("other thread"), { user: "alice" });
      expect([r1.status, r2.status, r3.status]).toEqual(["running", "pending", "pending"]);

      c.clock.advance(31_000);
      const b = c.worker("worker-b", c.stores[1]);
      const reaped = await b.reapExpired(); // a's lease expired: r1 failed; then b fills its free slots
      expect(reaped.map((r) => [r.runId, r.status, r.outcome?.primaryStopReason])).toEqual([[r1.runId, "error", "lease_expired"]]);
      await until(async () => (await c.statuses([r2, r3])).every((s) => s === "running"), "worker b to claim the dead worker's pending runs");
      for (const r of [r2, r3]) expect(await c.stores[0].getRun(r.runId)).toMatchObject({ owner: "worker-b", epoch: 1 });
      await c.finish(r2.runId);
      await c.finish(r3.runId);
      await Promise.all([r2, r3].map((r) => b.join(r.runId)));
      expect(await c.statuses([r1, r2, r3])).toEqual(["error", "success", "success"]);
    });

    it("a run due later starts once due, and counts toward the user's limit only then", async () => {
      const c = await cluster();
      const a = c.worker("worker-a", c.stores[0], { maxActiveRunsPerUser: 1 });
      const [t1, t2, t3] = await c.threads(3);
      const dueAt = new Date(c.clock.now() + 60_000).toISOString();
      const later = await a.createOrReject(t1!, request("later"), { user: "alice", dueAt });
      expect(later).toMatchObject({ status: "pending", dueAt });
      const now = await a.createOrReject(t2!, request("now"), { user: "alice" });
      expect(now.status).toBe("running");
      await expect(a.createOrReject(t3!, request(), { user: "alice" })).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
      await c.finish(now.runId);
      await a.join(now.runId); // it ended: it no longer counts
      expect(await a.claimPending()).toEqual([]); // `later` is not due
      c.clock.advance(60_000);
      expect((await a.claimPending()).map((r) => r.runId)).toEqual([later.runId]);
      await expect(a.createOrReject(t3!, request(), { user: "alice" })).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
      await c.finish(later.runId);
      expect((await a.join(later.runId)).status).toBe("success");
    });
  });
}
