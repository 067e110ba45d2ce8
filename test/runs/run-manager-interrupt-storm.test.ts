import { describe, expect, it } from "vitest";
import type { RunStore } from "../../kernel/runs/types.js";
import { managedSetups, request, storeWith, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

/** A view of `store` that counts every call, by method. */
function counting(store: RunStore): { store: RunStore; calls: Map<string, number>; total(): number } {
  const calls = new Map<string, number>();
  const view = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: view, calls, total: () => [...calls.values()].reduce((n, c) => n + c, 0) };
}

const STORM = 60;

/**
 * An interrupt (or rollback) storm on one thread: many admissions at once while a run is
 * running. Each admission supersedes the thread's pending runs in its own transaction
 * (`AdmissionReplace`), so the store work grows with the number of admissions, not with its
 * square (before: every admission cancelled, one store call each, every pending run it saw —
 * about STORM²/2 cancels for concurrent admissions), and every superseded run's waiter is
 * answered `interrupted` at once.
 */
describe.each(["interrupt", "rollback"] as const)("RunManager: a storm of %s admissions on one thread", (strategy) => {
  it("supersedes the queue in each admission: linear store work, one run left pending, every waiter answered", async () => {
    const s = await started();
    const thread = await s.thread();
    const first = await s.manager.createOrReject(thread, request("first"), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the first run to start");
    // Another worker can undo it (rollback) once its owner journaled the captured rollback point.
    await until(async () => (await s.store.readJournal(first.runId)).some((e) => e.name === "rollback_point"), "its rollback point to be recorded");

    const view = counting(s.store);
    const other = s.worker({ store: view.store });
    managers.push(other);
    const admitted = await Promise.all(Array.from({ length: STORM }, (_, i) => other.createOrReject(thread, request(`attempt ${i}`), { user: "alice", strategy })));

    // Store calls per admission stay bounded — a constant, including the thread's `busy`
    // status bookkeeping (updateThread + getRun) — where the old path made ~STORM/2 cancel
    // attempts each (≈ STORM²/2 = 1800 here).
    expect(view.calls.get("cancelPending") ?? 0).toBe(0);
    expect(view.total()).toBeLessThan(STORM * 10);

    // The last admission is the thread's only pending run; every earlier one was superseded.
    const runs = await s.store.listRuns(thread, { limit: STORM + 5, offset: 0 });
    const byId = new Map(runs.map((r) => [r.runId, r]));
    const last = admitted.at(-1)!;
    const stillPending = runs.filter((r) => r.status === "pending").map((r) => r.runId);
    expect(stillPending).toHaveLength(1);
    const [survivor] = stillPending;
    for (const run of admitted.filter((r) => r.runId !== survivor)) {
      expect(byId.get(run.runId)!.status).toBe("interrupted");
      expect(byId.get(run.runId)!.outcome).toMatchObject({ status: "cancelled" });
    }
    // Admissions ran in some order; the survivor is the one admitted last (the highest sequence).
    expect(byId.get(survivor!)!.sequence).toBe(Math.max(...admitted.map((r) => byId.get(r.runId)!.sequence!)));
    expect(admitted.map((r) => r.runId)).toContain(last.runId);

    // Every superseded run's waiter is answered with its final record, without waiting for the running one.
    const superseded = admitted.filter((r) => r.runId !== survivor);
    const answers = await Promise.all(superseded.map((r) => other.join(r.runId)));
    expect(answers.map((a) => a.status)).toEqual(superseded.map(() => "interrupted"));

    // The running run was cancelled once (one control series), and the survivor runs next.
    const done = await s.manager.join(first.runId);
    expect(done.status).toBe("interrupted");
    await until(() => s.executor.calls.length === 2, "the surviving run to start");
    expect(s.executor.calls[1]!.run.runId).toBe(survivor);
    s.executor.calls[1]!.finish();
    expect((await s.manager.join(survivor!)).status).toBe("success");
  });
});
