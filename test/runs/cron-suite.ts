/**
 * Crons on every store (memory, SQLite file, PostgreSQL): the CronStore's records, search,
 * count and tick claim, and the CronScheduler firing them through RunManagers with an
 * injected clock — at the tick and not before, missed ticks once, `end_time`, stateless
 * crons on a new thread per fire, and two workers on one database firing each tick once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CronScheduler, type CronFire } from "../../kernel/runs/cron-scheduler.js";
import { parseCronSchedule } from "../../kernel/runs/cron-schedule.js";
import type { CronRecord, CronStore } from "../../kernel/runs/cron-types.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import type { RunRecord, RunStore } from "../../kernel/runs/types.js";
import { ScriptedExecutor } from "../plugins/gateway/harness.js";
import { ManualClock, START_MS, until } from "./run-manager-harness.js";

/** Two run stores and two cron stores on one new, empty database (for memory: one instance twice). */
export type MakeCronCluster = () => Promise<{ runStores: [RunStore, RunStore]; cronStores: [CronStore, CronStore]; dispose: () => Promise<void> }>;

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export function cronRecord(overrides: Partial<CronRecord> & Pick<CronRecord, "cronId">, nowMs = START_MS): CronRecord {
  const schedule = overrides.schedule ?? "*/5 * * * *";
  const base: CronRecord = {
    cronId: overrides.cronId,
    owner: "alice",
    assistantId: "lead",
    threadId: null,
    schedule,
    timezone: null,
    endTime: null,
    enabled: true,
    onRunCompleted: null,
    payload: { assistant_id: "lead", input: "tick" },
    request: { assistantId: "lead", input: "tick" },
    strategy: "enqueue",
    metadata: {},
    nextRunAt: parseCronSchedule(schedule, overrides.timezone ?? null).nextAfter(nowMs, overrides.endTime ?? null),
    createdAt: iso(nowMs),
    updatedAt: iso(nowMs),
  };
  return { ...base, ...overrides };
}

export function describeCrons(name: string, makeCluster: MakeCronCluster): void {
  describe(`crons: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function cluster() {
      const { runStores, cronStores, dispose } = await makeCluster();
      const bridge = new MemoryStreamBridge();
      const executor = new ScriptedExecutor();
      const clock = new ManualClock();
      const logs: string[] = [];
      let ids = 0;
      let threads = 0;
      const managers = runStores.map(
        (store, i) =>
          new RunManager({ store, bridge, executor, clock, workerId: `worker-${i}`, leaseTtlMs: 30_000, heartbeatMs: 10_000, shutdownGraceMs: 0, newRunId: () => `run-${i}-${++ids}`, log: (message, error) => logs.push(`manager: ${message} ${String(error ?? "")}`) }),
      ) as [RunManager, RunManager];
      const schedulers = managers.map(
        (runs, i) => new CronScheduler({ crons: cronStores[i]!, runs, store: runStores[i]!, clock, log: (message) => logs.push(message), newThreadId: () => `cron-thread-${i}-${++threads}` }),
      ) as [CronScheduler, CronScheduler];
      cleanups.push(async () => {
        await Promise.all(schedulers.map((s) => s.settled()));
        await Promise.all(managers.map((m) => m.shutdown()));
        await dispose();
      });
      const thread = async (threadId: string, owner = "alice") => {
        const now = iso(clock.now());
        await runStores[0].createThread({ threadId, owner, status: "idle", metadata: {}, createdAt: now, updatedAt: now });
        return threadId;
      };
      const runsOf = async (threadId: string): Promise<RunRecord[]> => runStores[0].listRuns(threadId, { limit: 100, offset: 0 });
      /** Wait until the fired runs ended (or were deleted with their thread) before the clock moves: a run in flight must not see its lease expire. */
      const quiet = async (fires: readonly CronFire[]) => {
        for (const fire of fires) {
          if (!("run" in fire)) continue;
          await until(async () => {
            const run = await runStores[0].getRun(fire.run.runId);
            return run === null || (run.status !== "pending" && run.status !== "running");
          }, `run ${fire.run.runId} ended`);
        }
      };
      return { quiet, runStores, cronStores, crons: cronStores[0], managers, schedulers, scheduler: schedulers[0], clock, executor, logs, thread, runsOf };
    }

    it("keeps every field of a cron, updates the given ones, deletes it; a taken id conflicts", async () => {
      const { crons } = await cluster();
      const cron = cronRecord({
        cronId: "c-1", threadId: "t-1", timezone: "Europe/Paris", endTime: "2027-01-01T00:00:00.000Z", onRunCompleted: null,
        payload: { assistant_id: "lead", input: { messages: [{ role: "user", content: "ping" }] }, metadata: { team: "a" } },
        request: { assistantId: "lead", input: { messages: [{ role: "user", content: "ping" }] }, metadata: { team: "a" }, maxTurns: 3 },
        strategy: "interrupt", metadata: { team: "a", n: 1 },
      });
      expect(await crons.createCron(cron)).toEqual(cron);
      expect(await crons.getCron("c-1")).toEqual(cron);
      await expect(crons.createCron(cron)).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });

      const later = iso(START_MS + MINUTE);
      const updated = await crons.updateCron("c-1", { schedule: "0 9 * * *", enabled: false, endTime: null, metadata: { team: "b" }, nextRunAt: "2026-01-01T09:00:00.000Z" }, later);
      expect(updated).toEqual({ ...cron, schedule: "0 9 * * *", enabled: false, endTime: null, metadata: { team: "b" }, nextRunAt: "2026-01-01T09:00:00.000Z", updatedAt: later });
      expect(await crons.getCron("c-1")).toEqual(updated);
      expect(await crons.updateCron("missing", { enabled: true }, later)).toBeNull();

      expect(await crons.deleteCron("c-1")).toBe(true);
      expect(await crons.deleteCron("c-1")).toBe(false);
      expect(await crons.getCron("c-1")).toBeNull();
    });

    it("searches and counts only the owner's crons, by assistant, thread, enabled and metadata, sorted and paged", async () => {
      const { crons } = await cluster();
      const made = [
        cronRecord({ cronId: "a", assistantId: "lead", threadId: "t-2", metadata: { team: "x", tier: 1 }, createdAt: iso(START_MS + 3), schedule: "0 1 * * *" }),
        cronRecord({ cronId: "b", assistantId: "subagent", threadId: null, metadata: { team: "y" }, createdAt: iso(START_MS + 1), schedule: "0 3 * * *", endTime: "2026-06-01T00:00:00.000Z" }),
        cronRecord({ cronId: "c", assistantId: "lead", threadId: "t-1", metadata: { team: "x", tier: 2 }, createdAt: iso(START_MS + 2), enabled: false, schedule: "0 2 * * *" }),
        cronRecord({ cronId: "d", owner: "bob", metadata: { team: "x" }, createdAt: iso(START_MS + 4) }),
      ];
      for (const cron of made) await crons.createCron(cron);
      const ids = async (search: Partial<Parameters<CronStore["searchCrons"]>[0]>) =>
        (await crons.searchCrons({ owner: "alice", sortBy: "createdAt", sortOrder: "desc", limit: 10, offset: 0, ...search })).map((c) => c.cronId);

      expect(await ids({})).toEqual(["a", "c", "b"]);
      expect(await ids({ sortOrder: "asc" })).toEqual(["b", "c", "a"]);
      expect(await ids({ sortBy: "cronId", sortOrder: "asc" })).toEqual(["a", "b", "c"]);
      expect(await ids({ sortBy: "nextRunAt", sortOrder: "asc" })).toEqual(["a", "c", "b"]);
      // A stateless cron's thread (null) sorts as the smallest value, on every store.
      expect(await ids({ sortBy: "threadId", sortOrder: "asc" })).toEqual(["b", "c", "a"]);
      expect(await ids({ sortBy: "endTime", sortOrder: "desc" })).toEqual(["b", "c", "a"]);
      expect(await ids({ sortBy: "assistantId", sortOrder: "desc" })).toEqual(["b", "c", "a"]);
      expect(await ids({ limit: 1, offset: 1 })).toEqual(["c"]);
      expect(await ids({ assistantId: "lead" })).toEqual(["a", "c"]);
      expect(await ids({ threadId: "t-1" })).toEqual(["c"]);
      expect(await ids({ enabled: false })).toEqual(["c"]);
      expect(await ids({ enabled: true })).toEqual(["a", "b"]);
      expect(await ids({ metadata: { team: "x" } })).toEqual(["a", "c"]);
      expect(await ids({ metadata: { team: "x", tier: 2 } })).toEqual(["c"]);
      expect(await ids({ owner: "bob" })).toEqual(["d"]);

      expect(await crons.countCrons({ owner: "alice" })).toBe(3);
      expect(await crons.countCrons({ owner: "alice", assistantId: "lead" })).toBe(2);
      expect(await crons.countCrons({ owner: "alice", threadId: "t-2" })).toBe(1);
      expect(await crons.countCrons({ owner: "alice", metadata: { team: "y" } })).toBe(1);
      expect(await crons.countCrons({ owner: "carol" })).toBe(0);
    });

    it("lists due crons of every owner, earliest first, enabled only; a tick's claim is a compare-and-set", async () => {
      const { crons } = await cluster();
      await crons.createCron(cronRecord({ cronId: "late", nextRunAt: iso(START_MS + 2 * MINUTE) }));
      await crons.createCron(cronRecord({ cronId: "early", owner: "bob", nextRunAt: iso(START_MS + MINUTE) }));
      await crons.createCron(cronRecord({ cronId: "off", enabled: false, nextRunAt: iso(START_MS) }));
      await crons.createCron(cronRecord({ cronId: "future", nextRunAt: iso(START_MS + 10 * MINUTE) }));
      await crons.createCron(cronRecord({ cronId: "ended", nextRunAt: null }));

      expect((await crons.dueCrons(iso(START_MS + 2 * MINUTE), 10)).map((c) => c.cronId)).toEqual(["early", "late"]);
      expect((await crons.dueCrons(iso(START_MS + 2 * MINUTE), 1)).map((c) => c.cronId)).toEqual(["early"]);
      expect(await crons.dueCrons(iso(START_MS), 10)).toEqual([]);

      const due = iso(START_MS + MINUTE);
      const next = iso(START_MS + 6 * MINUTE);
      expect(await crons.advanceCron("early", iso(START_MS), next, due)).toBe(false);
      expect(await crons.advanceCron("early", due, next, due)).toBe(true);
      expect(await crons.advanceCron("early", due, next, due)).toBe(false);
      expect((await crons.getCron("early"))?.nextRunAt).toBe(next);
      expect(await crons.advanceCron("off", iso(START_MS), next, due)).toBe(false);
      expect(await crons.advanceCron("ended", null as unknown as string, next, due)).toBe(false);
    });

    it("fires a thread cron at its tick and not before: an ordinary run of its creator, due at the tick, tagged with the cron", async () => {
      const c = await cluster();
      const threadId = await c.thread("t-fire");
      const cron = cronRecord({ cronId: "c-fire", threadId, schedule: "*/5 * * * *", request: { assistantId: "lead", input: { events: 1 }, metadata: { team: "a" } } });
      await c.crons.createCron(cron);
      expect(cron.nextRunAt).toBe(iso(START_MS + 5 * MINUTE));

      c.clock.advance(5 * MINUTE - 1);
      expect(await c.scheduler.tick()).toEqual([]);
      expect(await c.runsOf(threadId)).toEqual([]);

      c.clock.advance(1);
      const [fire] = await c.scheduler.tick();
      expect(fire).toMatchObject({ cronId: "c-fire", tick: iso(START_MS + 5 * MINUTE) });
      const run = await until(async () => (await c.runStores[0].getRun((fire as { run: RunRecord }).run.runId))?.status === "success", "the fired run finished").then(async () => (await c.runsOf(threadId))[0]!);
      expect(run).toMatchObject({ threadId, user: "alice", assistantId: "lead", dueAt: iso(START_MS + 5 * MINUTE), multitaskStrategy: "enqueue", status: "success" });
      expect(run.request.metadata).toEqual({ team: "a", cron_id: "c-fire" });
      expect(run.request.input).toEqual({ events: 1 });
      expect((await c.crons.getCron("c-fire"))?.nextRunAt).toBe(iso(START_MS + 10 * MINUTE));

      // The same instant again: nothing more is due.
      expect(await c.scheduler.tick()).toEqual([]);
      expect(await c.runsOf(threadId)).toHaveLength(1);
    });

    it("fires missed ticks once: a cron every minute whose workers were away for an hour fires one run, then goes on from now", async () => {
      const c = await cluster();
      const threadId = await c.thread("t-missed");
      await c.crons.createCron(cronRecord({ cronId: "c-missed", threadId, schedule: "* * * * *" }));
      c.clock.advance(60 * MINUTE + 30_000);
      const fires = await c.scheduler.tick();
      await c.quiet(fires);
      expect(fires).toHaveLength(1);
      expect(fires[0]).toMatchObject({ tick: iso(START_MS + MINUTE) });
      expect(await c.scheduler.tick()).toEqual([]);
      expect(await c.runsOf(threadId)).toHaveLength(1);
      expect((await c.crons.getCron("c-missed"))?.nextRunAt).toBe(iso(START_MS + 61 * MINUTE));
      c.clock.advance(30_000);
      expect(await c.scheduler.tick()).toHaveLength(1);
      expect(await c.runsOf(threadId)).toHaveLength(2);
    });

    it("stops at end_time (no next tick) and never fires a disabled cron", async () => {
      const c = await cluster();
      const threadId = await c.thread("t-end");
      await c.crons.createCron(cronRecord({ cronId: "c-end", threadId, schedule: "*/5 * * * *", endTime: iso(START_MS + 7 * MINUTE) }));
      await c.crons.createCron(cronRecord({ cronId: "c-off", threadId, schedule: "* * * * *", enabled: false }));
      c.clock.advance(5 * MINUTE);
      const fires = await c.scheduler.tick();
      await c.quiet(fires);
      expect(fires.map((f) => f.cronId)).toEqual(["c-end"]);
      expect((await c.crons.getCron("c-end"))?.nextRunAt).toBeNull();
      c.clock.advance(60 * MINUTE);
      expect(await c.scheduler.tick()).toEqual([]);
      expect(await c.runsOf(threadId)).toHaveLength(1);
    });

    it("runs a stateless cron on a new thread per fire, deleting it after the run unless on_run_completed is keep", async () => {
      const c = await cluster();
      await c.crons.createCron(cronRecord({ cronId: "c-keep", schedule: "* * * * *", onRunCompleted: "keep" }));
      await c.crons.createCron(cronRecord({ cronId: "c-delete", schedule: "* * * * *", onRunCompleted: "delete" }));
      const fired: RunRecord[] = [];
      for (let i = 0; i < 2; i++) {
        c.clock.advance(MINUTE);
        const fires = await c.scheduler.tick();
        await c.quiet(fires);
        for (const fire of fires) if ("run" in fire) fired.push(fire.run);
      }
      await c.scheduler.settled();
      const kept = fired.filter((r) => r.request.metadata?.cron_id === "c-keep");
      const deleted = fired.filter((r) => r.request.metadata?.cron_id === "c-delete");
      expect(kept).toHaveLength(2);
      expect(deleted).toHaveLength(2);
      expect(new Set(fired.map((r) => r.threadId)).size).toBe(4);
      for (const run of kept) {
        const thread = await c.runStores[0].getThread(run.threadId);
        expect(thread).toMatchObject({ owner: "alice", metadata: { cron_id: "c-keep" } });
        expect((await c.runStores[0].getRun(run.runId))?.status).toBe("success");
      }
      for (const run of deleted) {
        expect(await c.runStores[0].getThread(run.threadId)).toBeNull();
        expect(await c.runStores[0].getRun(run.runId)).toBeNull();
      }
    });

    it("deletes a thread cron whose thread is gone, at its next tick", async () => {
      const c = await cluster();
      const threadId = await c.thread("t-gone");
      await c.crons.createCron(cronRecord({ cronId: "c-gone", threadId, schedule: "* * * * *" }));
      await c.runStores[0].deleteThread(threadId);
      c.clock.advance(MINUTE);
      expect(await c.scheduler.tick()).toEqual([{ cronId: "c-gone", tick: iso(START_MS + MINUTE), skipped: "thread_deleted" }]);
      expect(await c.crons.getCron("c-gone")).toBeNull();
    });

    it("two workers on one database fire each tick exactly once", async () => {
      const c = await cluster();
      const threadIds = [await c.thread("t-w1"), await c.thread("t-w2")];
      await c.crons.createCron(cronRecord({ cronId: "c-w1", threadId: threadIds[0]!, schedule: "* * * * *" }));
      await c.crons.createCron(cronRecord({ cronId: "c-w2", threadId: threadIds[1]!, schedule: "* * * * *" }));
      await c.crons.createCron(cronRecord({ cronId: "c-w3", schedule: "* * * * *", onRunCompleted: "keep" }));
      const fires: Array<{ cronId: string; tick: string }> = [];
      for (let tick = 1; tick <= 4; tick++) {
        c.clock.advance(MINUTE);
        // Both workers poll at the same instant, concurrently.
        const [a, b] = await Promise.all([c.schedulers[0].tick(), c.schedulers[1].tick()]);
        await c.quiet([...a, ...b]);
        fires.push(...[...a, ...b].filter((f) => "run" in f).map((f) => ({ cronId: f.cronId, tick: f.tick })));
      }
      const expected = ["c-w1", "c-w2", "c-w3"].flatMap((cronId) => [1, 2, 3, 4].map((n) => `${cronId}@${iso(START_MS + n * MINUTE)}`));
      expect(fires.map((f) => `${f.cronId}@${f.tick}`).sort()).toEqual(expected.sort());
      for (const threadId of threadIds) expect(await c.runsOf(threadId)).toHaveLength(4);
      expect(await c.runStores[1].searchThreads({ owner: "alice", metadata: { cron_id: "c-w3" }, limit: 100, offset: 0 })).toHaveLength(4);
    });
  });
}
