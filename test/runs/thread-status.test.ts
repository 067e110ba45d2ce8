import { describe, expect, it } from "vitest";
import { managedSetups, request, storeWith, until } from "./run-manager-harness.js";

const { started } = managedSetups();

/**
 * LangGraph's thread statuses and transitions (the Agent Server's storage ops): `idle` on
 * creation; `busy` from a run's admission (pending included); when a run ends, `error` if it
 * failed, else `busy` while another run of the thread is pending or running, else `idle` — a
 * cancelled run included (LangGraph's `interrupted` is a run stopped at an interrupt).
 */
describe("thread statuses", () => {
  it("busy from the admission of a pending run, idle once the queue drained", async () => {
    const s = await started({ jobs: 1 });
    const thread = await s.thread();
    const other = await s.thread("thread-2");
    const first = await s.manager.createOrReject(other, request(), { user: "alice" }); // takes the only slot
    await until(() => s.executor.calls.length === 1, "the first run to start");
    const queued = await s.manager.createOrReject(thread, request(), { user: "alice" });
    expect((await s.store.getRun(queued.runId))!.status).toBe("pending");
    expect((await s.store.getThread(thread))!.status).toBe("busy");

    s.executor.call(first.runId).finish();
    await until(() => s.executor.calls.length === 2, "the queued run to start");
    expect((await s.store.getThread(other))!.status).toBe("idle");
    s.executor.call(queued.runId).finish();
    await s.manager.join(queued.runId);
    expect((await s.store.getThread(thread))!.status).toBe("idle");
  });

  it("stays busy when a run ends while another of the thread is queued (enqueue)", async () => {
    const s = await started();
    const thread = await s.thread();
    const first = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the first run to start");
    const second = await s.manager.createOrReject(thread, request(), { user: "alice", strategy: "enqueue" });
    s.executor.call(first.runId).finish();
    await s.manager.join(first.runId);
    // The second run may have started already (busy either way): never idle in between.
    expect((await s.store.getThread(thread))!.status).toBe("busy");
    await until(() => s.executor.calls.length === 2, "the second run to start");
    s.executor.call(second.runId).finish();
    await s.manager.join(second.runId);
    expect((await s.store.getThread(thread))!.status).toBe("idle");
  });

  it("error after a failed run; idle again after the next run succeeds", async () => {
    const s = await started();
    const thread = await s.thread();
    const failing = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    s.executor.call(failing.runId).fail(new Error("boom"));
    expect((await s.manager.join(failing.runId)).status).toBe("error");
    expect((await s.store.getThread(thread))!.status).toBe("error");

    const next = await s.manager.createOrReject(thread, request(), { user: "alice" });
    expect((await s.store.getThread(thread))!.status).toBe("busy");
    await until(() => s.executor.calls.length === 2, "the next run to start");
    s.executor.call(next.runId).finish();
    await s.manager.join(next.runId);
    expect((await s.store.getThread(thread))!.status).toBe("idle");
  });

  it("idle after a running run is cancelled, and after a pending one is cancelled", async () => {
    const s = await started({ jobs: 1 });
    const thread = await s.thread();
    const running = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    await s.manager.cancel(thread, running.runId, { wait: true, user: "alice" });
    expect((await s.store.getRun(running.runId))!.status).toBe("interrupted");
    expect((await s.store.getThread(thread))!.status).toBe("idle");

    const blocker = await s.thread("thread-2");
    const busyRun = await s.manager.createOrReject(blocker, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 2, "the blocker to start");
    const pending = await s.manager.createOrReject(thread, request(), { user: "alice" });
    expect((await s.store.getThread(thread))!.status).toBe("busy");
    await s.manager.cancel(thread, pending.runId, { user: "alice" });
    expect((await s.store.getRun(pending.runId))!.status).toBe("interrupted");
    expect((await s.store.getThread(thread))!.status).toBe("idle");
    s.executor.call(busyRun.runId).finish();
  });
});

describe("thread status after an admission that races the run's end", () => {
  it("a pending run that ended before the admission marked its thread busy leaves the thread idle, not busy", async () => {
    const s = await started();
    const thread = await s.thread();
    let armed = true;
    // Another worker claims and ends the run between its admission and the busy write: simulated by ending it right before that write.
    const racing = storeWith(s.store, {
      updateThread: (async (threadId: string, patch: { status?: string }, now: string) => {
        if (armed && patch.status === "busy") {
          armed = false;
          const [run] = await s.store.activeRuns(threadId);
          await s.store.cancelPending(run!.runId, { contract: "status", version: 2, status: "cancelled", stopReasons: [], text: "" }, now);
        }
        return s.store.updateThread(threadId, patch as never, now);
      }) as never,
    });
    const worker = s.worker({ store: racing });
    try {
      const due = new Date(s.clock.now() + 60_000).toISOString();
      await worker.createOrReject(thread, request(), { user: "alice", dueAt: due });
      expect(armed).toBe(false);
      expect((await s.store.getThread(thread))!.status).toBe("idle");
    } finally {
      await worker.shutdown();
    }
  });
});
