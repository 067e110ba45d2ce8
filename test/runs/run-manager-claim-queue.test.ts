import { describe, expect, it, vi } from "vitest";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describeClaimQueueManagers } from "./claim-queue-managers.js";
import { request, setup, until } from "./run-manager-harness.js";

describeClaimQueueManagers("memory", async () => {
  const store = new MemoryRunStore();
  return { stores: [store, store], dispose: async () => undefined };
});

describe("start at admission", () => {
  it("a run on an idle thread starts on the admitting worker in the admission itself; one behind it waits for the queue", async () => {
    const s = await setup({ jobs: 1 });
    const claims = vi.spyOn(s.store, "claimDue");
    const admissions = vi.spyOn(s.store, "admitRun");
    const [t1, t2] = [await s.thread("t1"), await s.thread("t2")];
    const first = await s.manager.createOrReject(t1, request(), { user: "alice" });
    expect(first).toMatchObject({ status: "running", owner: "worker-a", epoch: 1 });
    expect(claims).not.toHaveBeenCalled(); // no window in which another worker's claim could take it
    expect(admissions.mock.calls[0]![2]).toEqual({ owner: "worker-a", ttlMs: 30_000, now: s.clock.now() });
    // Full (jobs 1): the next admission asks for no start, and its run waits.
    const second = await s.manager.createOrReject(t2, request(), { user: "alice" });
    expect(second.status).toBe("pending");
    expect(admissions.mock.calls[1]![2]).toBeUndefined();
    await until(() => s.executor.calls.length === 1, "the first run to reach the executor");
    s.executor.call(first.runId).finish();
    await s.manager.join(first.runId);
    await until(async () => (await s.store.getRun(second.runId))!.status === "running", "the freed slot to take the second run");
    await s.manager.shutdown();
  });
});

describe("RunManager option jobs", () => {
  it.each([0, -1, 1.5, Number.NaN])("refuses jobs = %s", async (jobs) => {
    await expect(setup({ jobs })).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID", pointer: "/jobs" });
  });

  it("refuses a due time that is not an instant", async () => {
    const s = await setup();
    const thread = await s.thread();
    await expect(s.manager.createOrReject(thread, { assistantId: "lead", input: "x" }, { user: "alice", dueAt: "tomorrow" })).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID" });
    expect(await s.store.activeRuns(thread)).toEqual([]);
    await s.manager.shutdown();
  });
});
