/**
 * A run whose preparation fails before its executor starts — the bridge refuses the
 * control subscription (`onControl`, e.g. Redis briefly unavailable) or the store refuses
 * the thread's `busy` status — ends at once, honestly: status `error` with that failure,
 * `metadata`, `error` and `end` on its stream, its thread not left busy. It is not left
 * `running` without a heartbeat until another worker's reaper marks it `lease_expired`.
 */
import { describe, expect, it } from "vitest";
import { KeelError } from "../../kernel/errors.js";
import type { StreamBridge } from "../../kernel/runs/types.js";
import { eventNames, eventsOf, managedSetups, request, storeWith, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

/** The bridge with `onControl` refused for the first `refusals` calls. */
function refusingControl(bridge: StreamBridge, refusals: number): StreamBridge {
  let left = refusals;
  return new Proxy(bridge, {
    get(target, prop, receiver) {
      if (prop === "onControl") {
        return (...args: Parameters<StreamBridge["onControl"]>) => {
          if (left-- > 0) return Promise.reject(new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", "subscribing to the control messages: Redis is unavailable (test)"));
          return target.onControl(...args);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("a run whose preparation fails before the executor", () => {
  it("a refused control subscription ends the run `error` at once (not left to its lease); the next run on the thread runs", async () => {
    const s = await started();
    const worker = s.worker({ workerId: "worker-a", bridge: refusingControl(s.bridge, 1) });
    managers.push(worker);
    const threadId = await s.thread();

    const run = await worker.createOrReject(threadId, request("go"), { user: "alice" });
    await until(async () => (await s.store.getRun(run.runId))?.status === "error", "the run ended error");

    const stored = (await s.store.getRun(run.runId))!;
    expect(stored.outcome).toMatchObject({ status: "failed", error: { type: "KEEL_ERR_STREAM_UNAVAILABLE" } });
    expect(stored.outcome!.error!.message).toContain("subscribing to the control messages");
    expect(s.executor.calls).toHaveLength(0);
    expect(await eventNames(s.bridge, run.runId)).toEqual(["metadata", "error", "end"]);
    expect((await eventsOf(s.bridge, run.runId))[1]!.data).toMatchObject({ type: "KEEL_ERR_STREAM_UNAVAILABLE" });
    expect((await s.store.getThread(threadId))!.status).toBe("error");
    expect(s.logs.some((l) => l.includes(`run ${run.runId}: preparing the run failed before its executor started`))).toBe(true);
    expect(s.logs.filter((l) => l.includes("left to its lease"))).toEqual([]);

    // Long after the TTL nothing is left for a reaper, and the next run on the thread starts normally.
    s.clock.advance(10 * 30_000);
    expect(await worker.reapExpired()).toEqual([]);
    const next = await worker.createOrReject(threadId, request("again"), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the next run started");
    s.executor.call(next.runId).finish();
    await until(async () => (await s.store.getRun(next.runId))?.status === "success", "the next run succeeded");
  });

  it("a refused `busy` thread status ends the run `error` with the store's failure", async () => {
    const s = await started();
    let refused = 0;
    const store = storeWith(s.store, {
      updateThread: ((threadId: string, patch: { status?: string }, at: string) => {
        if (patch.status === "busy" && refused++ === 0) return Promise.reject(new KeelError("KEEL_ERR_STORE_UNAVAILABLE", "the run store is unavailable (test)"));
        return s.store.updateThread(threadId, patch as never, at);
      }) as never,
    });
    const worker = s.worker({ workerId: "worker-a", store });
    managers.push(worker);
    const threadId = await s.thread();

    const run = await worker.createOrReject(threadId, request("go"), { user: "alice" });
    await until(async () => (await s.store.getRun(run.runId))?.status === "error", "the run ended error");

    expect((await s.store.getRun(run.runId))!.outcome).toMatchObject({ status: "failed", error: { type: "KEEL_ERR_STORE_UNAVAILABLE", message: "the run store is unavailable (test)" } });
    expect(refused).toBe(1);
    expect(s.executor.calls).toHaveLength(0);
    expect(await eventNames(s.bridge, run.runId)).toEqual(["metadata", "error", "end"]);
    expect((await s.store.getThread(threadId))!.status).toBe("error");
    s.clock.advance(10 * 30_000);
    expect(await worker.reapExpired()).toEqual([]);
  });
});
