/**
 * Fencing in the run service (memory store and bridge, the fake executor, a manual clock):
 * the lease is lost locally at validUntil − leaseMarginMs when no heartbeat renewed it; a
 * lost lease aborts the run, refuses every write (fence, journal, events) and writes
 * nothing terminal; journal appends and stream events are fenced by the stores themselves.
 */
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { fencingDisabled, UNSAFE_NO_FENCING_ENV } from "../../kernel/ports/fence.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { resolveOptions } from "../../kernel/runs/run-manager-options.js";
import type { JournalEntry } from "../../kernel/runs/types.js";
import { FakeExecutor, ManualClock, managedSetups, request, START_MS, storeWith, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

const entry = (name: string): JournalEntry => ({ seq: 0, at: new Date(START_MS).toISOString(), runId: "x", agent: "lead", turn: 1, kind: "lifecycle", name, status: "ok", durationMs: 0 });

describe("the lease is lost locally before it expires", () => {
  it("a heartbeat that keeps failing stops the run at validUntil − margin: aborted, every write refused, nothing terminal", async () => {
    const s = await started();
    const thread = await s.thread();
    let beats = 0;
    const failing = storeWith(s.store, {
      heartbeat: async () => {
        beats++;
        throw new Error("store unreachable");
      },
    });
    const worker = s.worker({ store: failing, heartbeatMs: 5, leaseTtlMs: 30_000, leaseMarginMs: 5_000 });
    managers.push(worker);
    const run = await worker.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const { io } = s.executor.call(run.runId);
    const fence = io.fence!;
    expect(fence).toMatchObject({ runId: run.runId, epoch: run.epoch });

    // Just before the local deadline (claim + 30 s − 5 s): failed heartbeats alone do not stop the run.
    s.clock.advance(24_999);
    const seen = beats;
    await until(() => beats >= seen + 3, "three more failed heartbeats");
    expect(io.signal.aborted).toBe(false);
    expect(fence.held).toBe(true);
    io.journal(entry("before_loss"));
    io.emit("custom", { n: 1 });

    // At the deadline the run is aborted, although the store's lease still has 5 s to go.
    s.clock.advance(1);
    await until(() => io.signal.aborted, "the run to be aborted at its local deadline");
    expect(fence.held).toBe(false);
    expect(() => fence.assertHeld("a test write")).toThrow(expect.objectContaining({ code: "KEEL_ERR_LEASE_FENCED" }));
    await expect(fence.confirm!("a test write")).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
    io.journal(entry("after_loss"));
    io.emit("custom", { n: 2 });
    await until(() => s.logs.some((m) => m.includes("no terminal state written")), "the execution to give up");

    const stored = (await s.store.getRun(run.runId))!;
    expect(stored.status).toBe("running");
    expect(Date.parse(stored.leaseExpiresAt!)).toBe(START_MS + 30_000);
    const names = (await s.store.readJournal(run.runId)).map((e) => e.name);
    expect(names).toContain("rollback_point");
    expect(names).not.toContain("after_loss");
    const events = await s.bridge.read(run.runId);
    expect(events.map((e) => e.data)).not.toContainEqual({ n: 2 });
    expect(events.map((e) => e.event)).not.toContain("end");
    expect(await s.store.getReport(run.runId)).toBeNull();
    expect(s.logs.some((m) => m.includes("passed its local deadline"))).toBe(true);

    // The reaper ends it once the store's lease expired.
    s.clock.advance(5_001);
    expect((await s.manager.reapExpired()).map((r) => r.runId)).toEqual([run.runId]);
  });

  it("a process resumed past its deadline (no tick came: SIGSTOP, GC pause) refuses its first write at once, and the run is aborted then", async () => {
    const s = await started();
    const thread = await s.thread();
    // Ticks far apart: nothing runs in the background during the test, as in a paused process.
    const worker = s.worker({ heartbeatMs: 20_000, leaseTtlMs: 30_000 });
    managers.push(worker);
    const run = await worker.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const { io } = s.executor.call(run.runId);
    s.clock.advance(25_000);
    expect(() => io.fence!.assertHeld("a write after the pause")).toThrow(expect.objectContaining({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/a write after the pause .* refused: the lease passed its local deadline/) }));
    expect(io.signal.aborted).toBe(true);
  });

  it("a heartbeat that hangs does not keep the run alive: the next tick past the deadline stops it", async () => {
    const s = await started();
    const thread = await s.thread();
    let calls = 0;
    const hanging = storeWith(s.store, { heartbeat: () => { calls++; return new Promise<boolean>(() => undefined); } });
    const worker = s.worker({ store: hanging, heartbeatMs: 5 });
    managers.push(worker);
    const run = await worker.createOrReject(thread, request(), { user: "alice" });
    await until(() => calls === 1, "a heartbeat to hang");
    const { io } = s.executor.call(run.runId);
    expect(io.signal.aborted).toBe(false);
    s.clock.advance(25_000);
    await until(() => io.signal.aborted, "the run to be aborted while its heartbeat hangs");
    expect(calls).toBe(1);
  });

  it("journal entries carry the run's epoch", async () => {
    const s = await started();
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    s.executor.call(run.runId).io.journal(entry("step"));
    s.executor.call(run.runId).finish();
    await s.manager.join(run.runId);
    const journal = await s.store.readJournal(run.runId);
    expect(journal.length).toBeGreaterThan(1);
    expect(journal.every((e) => e.epoch === run.epoch)).toBe(true);
  });

  it("leaseMarginMs: the default is min(5 s, TTL / 6, (TTL − heartbeat) / 2); margin + heartbeat must stay below the TTL", () => {
    const base = { store: new MemoryRunStore(), bridge: new MemoryStreamBridge(), executor: new FakeExecutor() };
    expect(resolveOptions(base).leaseMarginMs).toBe(5_000);
    expect(resolveOptions({ ...base, leaseTtlMs: 1_500, heartbeatMs: 300 }).leaseMarginMs).toBe(250);
    expect(resolveOptions({ ...base, leaseTtlMs: 1_000, heartbeatMs: 900 }).leaseMarginMs).toBe(50);
    expect(() => new RunManager({ ...base, leaseTtlMs: 30_000, heartbeatMs: 10_000, leaseMarginMs: 20_000 })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID", message: expect.stringMatching(/leaseMarginMs/) }));
    expect(() => new RunManager({ ...base, leaseMarginMs: -1 })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    expect(() => new RunManager({ ...base, leaseTtlMs: 30_000, heartbeatMs: 10_000, leaseMarginMs: 19_999 })).not.toThrow();
  });
});

describe("fence.confirm: the run store's lease row, for writes no transaction guards", () => {
  it("a worker whose local view is stale (its heartbeat 'succeeds', its clock stands still) is stopped by confirm once the reaper ended its run", async () => {
    const s = await started();
    const thread = await s.thread();
    const stale = storeWith(s.store, { heartbeat: async () => true });
    const worker = s.worker({ workerId: "worker-stale", store: stale, heartbeatMs: 20_000, clock: new ManualClock() });
    managers.push(worker);
    const run = await worker.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const { io } = s.executor.call(run.runId);
    await io.fence!.confirm!("a file write");
    s.clock.advance(30_001);
    expect((await s.manager.reapExpired()).map((r) => r.runId)).toEqual([run.runId]);
    // Locally the lease still looks held; the store's row says otherwise.
    await expect(io.fence!.confirm!("a file write")).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/a file write of run .* refused: the run is error/) });
    expect(io.signal.aborted).toBe(true);
    expect(io.fence!.held).toBe(false);
  });
});

describe("stores and bridges fence their writes", () => {
  it("memory store: a fenced journal append is refused for a stale epoch, another owner, an ended run or an expired lease", async () => {
    const s = await started();
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const now = s.clock.now();
    const held = { owner: "worker-a", epoch: run.epoch, now };
    await s.store.appendJournal(run.runId, [entry("held")], held);
    const refused = (fence: typeof held, why: RegExp) => expect(s.store.appendJournal(run.runId, [entry("late")], fence)).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(why) });
    await refused({ ...held, epoch: run.epoch + 1 }, /lease is at epoch/);
    await refused({ ...held, owner: "worker-b" }, /held by worker-a/);
    await refused({ ...held, now: now + 30_000 }, /lease expired/);
    await expect(s.store.appendJournal("no-such-run", [entry("late")], held)).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
    s.executor.call(run.runId).finish();
    await s.manager.join(run.runId);
    await refused(held, /run is success/);
    expect((await s.store.readJournal(run.runId)).filter((e) => e.name === "late")).toEqual([]);
  });

  it("memory bridge: an event of an older epoch than the run's newest is refused (KEEL_ERR_STREAM_FENCED)", async () => {
    const bridge = new MemoryStreamBridge();
    await bridge.publish("r", "metadata", {}, { epoch: 1 });
    await bridge.publish("r", "values", { n: 1 }, { epoch: 2 });
    await expect(bridge.publish("r", "values", { n: 2 }, { epoch: 1 })).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_FENCED" });
    await expect(bridge.end("r", { epoch: 1 })).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_FENCED" });
    await bridge.publish("r", "values", { n: 3 }, { epoch: 2 });
    // No epoch given: not fenced (the manager always gives one).
    await bridge.publish("r", "custom", {});
    expect((await bridge.read("r")).map((e) => e.epoch)).toEqual([1, 2, 2, undefined]);
  });
});

describe("the test-only switch KEEL_TEST_UNSAFE_NO_FENCING", () => {
  it("is refused outside NODE_ENV=test without the explicit opt-in, and rejects values other than 1", () => {
    expect(fencingDisabled({})).toBe(false);
    expect(fencingDisabled({ [UNSAFE_NO_FENCING_ENV]: "1", NODE_ENV: "test" })).toBe(true);
    expect(fencingDisabled({ [UNSAFE_NO_FENCING_ENV]: "1", KEEL_TEST_ALLOW_UNSAFE: "1" })).toBe(true);
    expect(() => fencingDisabled({ [UNSAFE_NO_FENCING_ENV]: "1", NODE_ENV: "production" })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    expect(() => fencingDisabled({ [UNSAFE_NO_FENCING_ENV]: "yes", NODE_ENV: "test" })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
  });

  it("switched on, a worker past its local deadline goes on (its writes still carry the epoch)", async () => {
    process.env[UNSAFE_NO_FENCING_ENV] = "1";
    try {
      const s = await started();
      const thread = await s.thread();
      const failing = storeWith(s.store, { heartbeat: async () => { throw new Error("store unreachable"); } });
      const worker = s.worker({ store: failing, heartbeatMs: 5 });
      managers.push(worker);
      const run = await worker.createOrReject(thread, request(), { user: "alice" });
      await until(() => s.executor.calls.length === 1, "the run to start");
      const { io } = s.executor.call(run.runId);
      s.clock.advance(40_000);
      await until(() => s.logs.some((m) => m.includes("OFF")) , "a beat past the deadline");
      expect(io.signal.aborted).toBe(false);
      expect(io.fence!.held).toBe(true);
      io.journal(entry("unfenced"));
      s.executor.call(run.runId).finish();
      await until(() => s.logs.some((m) => m.includes("refused") || m.includes("no terminal state")), "finalization");
      expect((await s.store.readJournal(run.runId)).find((e) => e.name === "unfenced")).toMatchObject({ epoch: run.epoch });
    } finally {
      delete process.env[UNSAFE_NO_FENCING_ENV];
    }
  });
});
