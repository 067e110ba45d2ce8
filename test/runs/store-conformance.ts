/**
 * The RunStore conformance suite: every implementation (memory, SQLite, PostgreSQL)
 * runs these same tests. Each test works on threads, owners and runs with fresh ids, so
 * a suite can run against a database that already holds data (a shared PostgreSQL).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StatusV2Payload } from "../../kernel/loop/status.js";
import type { JournalEntry, MultitaskStrategy, RunRecord, RunStore, ThreadRecord } from "../../kernel/runs/types.js";

export interface RunStoreConformanceOptions {
  /**
   * More store instances on the same database (other connections, as other workers
   * would have). The concurrency tests spread their calls over these and the main store;
   * they are closed after the suite.
   */
  makePeers?: () => Promise<RunStore[]>;
  /**
   * Stores on a new, empty database (the first, then peers on the same database): the
   * claim-queue tests claim across every thread, so they need a queue of their own.
   */
  makeEmptyStores: () => Promise<{ stores: RunStore[]; dispose: () => Promise<void> }>;
}

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const TTL = 30_000;

function outcome(status: StatusV2Payload["status"], text = "done"): StatusV2Payload {
  return { contract: "status", version: 2, status, stopReasons: [], text };
}

function makeThread(overrides: Partial<ThreadRecord> = {}): ThreadRecord {
  return { threadId: randomUUID(), owner: `user-${randomUUID()}`, status: "idle", metadata: {}, createdAt: iso(T0), updatedAt: iso(T0), ...overrides };
}

function makeRun(threadId: string, strategy: MultitaskStrategy, createdAtMs = T0, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: randomUUID(),
    threadId,
    assistantId: "lead",
    status: "pending",
    multitaskStrategy: strategy,
    epoch: 0,
    createdAt: iso(createdAtMs),
    updatedAt: iso(createdAtMs),
    user: "alice",
    request: { assistantId: "lead", input: { messages: [{ role: "user", content: "hi" }] }, metadata: { origin: "test" }, streamMode: ["values"], maxTurns: 8 },
    ...overrides,
  };
}

function journalEntry(runId: string, seq: number, kind: JournalEntry["kind"] = "model_call"): JournalEntry {
  return { seq, at: iso(T0 + seq), runId, agent: "lead", turn: seq, kind, name: `step-${seq}`, status: "ok", durationMs: seq * 10 };
}

export function describeRunStoreConformance(name: string, makeStore: () => Promise<RunStore>, options: RunStoreConformanceOptions): void {
  describe(`RunStore conformance: ${name}`, () => {
    let store: RunStore;
    let peers: RunStore[] = [];

    beforeAll(async () => {
      store = await makeStore();
      // init() creates or migrates the schema; running it again must be harmless.
      await store.init();
      await store.init();
      peers = options.makePeers ? await options.makePeers() : [];
    });

    afterAll(async () => {
      for (const peer of peers) await peer.close();
      await store?.close();
    });

    /** A created thread with `count` admitted (pending) runs, created 1 s apart. */
    async function threadWithRuns(count: number, strategy: MultitaskStrategy = "enqueue") {
      const thread = await store.createThread(makeThread());
      const runs: RunRecord[] = [];
      for (let i = 0; i < count; i++) {
        const admitted = await store.admitRun(makeRun(thread.threadId, strategy, T0 + i * 1000));
        if (!admitted.ok) throw new Error("setup admission refused");
        runs.push(admitted.run);
      }
      return { thread, runs };
    }

    describe("threads", () => {
      it("creates, reads back and updates a thread", async () => {
        const thread = makeThread({ metadata: { project: "keel", nested: { a: [1, 2] } } });
        expect(await store.createThread(thread)).toEqual(thread);
        expect(await store.getThread(thread.threadId)).toEqual(thread);

        await store.updateThread(thread.threadId, { status: "busy" }, iso(T0 + 5));
        expect(await store.getThread(thread.threadId)).toEqual({ ...thread, status: "busy", updatedAt: iso(T0 + 5) });

        await store.updateThread(thread.threadId, { metadata: { replaced: true } }, iso(T0 + 6));
        expect(await store.getThread(thread.threadId)).toEqual({ ...thread, status: "busy", metadata: { replaced: true }, updatedAt: iso(T0 + 6) });
      });

      it("answers null for an unknown thread and ignores updates of one", async () => {
        const threadId = randomUUID();
        expect(await store.getThread(threadId)).toBeNull();
        await store.updateThread(threadId, { status: "busy" }, iso(T0));
        expect(await store.getThread(threadId)).toBeNull();
      });

      it("refuses a second thread with the same id and keeps the first", async () => {
        const thread = await store.createThread(makeThread());
        await expect(store.createThread({ ...thread, owner: "mallory" })).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });
        expect((await store.getThread(thread.threadId))?.owner).toBe(thread.owner);
      });

      it("searches one owner's threads, newest first, by status and metadata, with limit and offset", async () => {
        const owner = `user-${randomUUID()}`;
        const t1 = await store.createThread(makeThread({ owner, createdAt: iso(T0 + 1), metadata: { team: "red", tier: 1, beta: true } }));
        const t2 = await store.createThread(makeThread({ owner, createdAt: iso(T0 + 2), metadata: { team: "blue", tier: 2, beta: false }, status: "busy" }));
        const t3 = await store.createThread(makeThread({ owner, createdAt: iso(T0 + 3), metadata: { team: "red", tier: 2, tags: ["x", "y"], note: null } }));
        await store.createThread(makeThread({ createdAt: iso(T0 + 4), metadata: { team: "red" } })); // another owner

        const ids = (threads: ThreadRecord[]) => threads.map((t) => t.threadId);
        const search = (filter: Partial<Parameters<RunStore["searchThreads"]>[0]>) => store.searchThreads({ owner, limit: 10, offset: 0, ...filter });

        expect(await search({})).toEqual([t3, t2, t1]);
        expect(ids(await search({ status: "busy" }))).toEqual([t2.threadId]);
        expect(ids(await search({ status: "error" }))).toEqual([]);
        expect(ids(await search({ metadata: { team: "red" } }))).toEqual([t3.threadId, t1.threadId]);
        expect(ids(await search({ metadata: { team: "red", tier: 2 } }))).toEqual([t3.threadId]);
        expect(ids(await search({ metadata: { tier: 1 } }))).toEqual([t1.threadId]);
        expect(ids(await search({ metadata: { tier: "1" } }))).toEqual([]);
        expect(ids(await search({ metadata: { beta: false } }))).toEqual([t2.threadId]);
        expect(ids(await search({ metadata: { tags: ["x", "y"] } }))).toEqual([t3.threadId]);
        expect(ids(await search({ metadata: { tags: ["y", "x"] } }))).toEqual([]);
        expect(ids(await search({ metadata: { note: null } }))).toEqual([t3.threadId]);
        expect(ids(await search({ metadata: { missing: null } }))).toEqual([]);
        expect(ids(await search({ metadata: { team: "red" }, status: "idle" }))).toEqual([t3.threadId, t1.threadId]);
        expect(ids(await search({ limit: 2 }))).toEqual([t3.threadId, t2.threadId]);
        expect(ids(await search({ limit: 2, offset: 2 }))).toEqual([t1.threadId]);
        expect(ids(await search({ limit: 2, offset: 3 }))).toEqual([]);
      });

      it("searches by ids, sorts by any thread field in either order, and counts what a search would find", async () => {
        const owner = `user-${randomUUID()}`;
        const a = await store.createThread(makeThread({ owner, threadId: `a-${randomUUID()}`, createdAt: iso(T0 + 3), updatedAt: iso(T0 + 4), status: "idle", metadata: { team: "red" } }));
        const b = await store.createThread(makeThread({ owner, threadId: `b-${randomUUID()}`, createdAt: iso(T0 + 1), updatedAt: iso(T0 + 9), status: "error", metadata: { team: "red" } }));
        const c = await store.createThread(makeThread({ owner, threadId: `c-${randomUUID()}`, createdAt: iso(T0 + 2), updatedAt: iso(T0 + 2), status: "busy" }));
        await store.createThread(makeThread({ threadId: `d-${randomUUID()}`, metadata: { team: "red" } })); // another owner
        const ids = (threads: ThreadRecord[]) => threads.map((t) => t.threadId);
        const search = (filter: Partial<Parameters<RunStore["searchThreads"]>[0]>) => store.searchThreads({ owner, limit: 10, offset: 0, ...filter });

        expect(ids(await search({ ids: [a.threadId, c.threadId, "not-a-thread"] }))).toEqual([a.threadId, c.threadId]);
        expect(ids(await search({ ids: [] }))).toEqual([a.threadId, c.threadId, b.threadId]);
        expect(ids(await search({ sortBy: "created_at", sortOrder: "asc" }))).toEqual([b.threadId, c.threadId, a.threadId]);
        expect(ids(await search({ sortBy: "updated_at" }))).toEqual([b.threadId, a.threadId, c.threadId]);
        expect(ids(await search({ sortBy: "updated_at", sortOrder: "asc" }))).toEqual([c.threadId, a.threadId, b.threadId]);
        expect(ids(await search({ sortBy: "thread_id", sortOrder: "asc" }))).toEqual([a.threadId, b.threadId, c.threadId]);
        expect(ids(await search({ sortBy: "thread_id", sortOrder: "desc", limit: 2, offset: 1 }))).toEqual([b.threadId, a.threadId]);
        expect(ids(await search({ sortBy: "status", sortOrder: "asc" }))).toEqual([c.threadId, b.threadId, a.threadId]);

        expect(await store.countThreads({ owner })).toBe(3);
        expect(await store.countThreads({ owner, metadata: { team: "red" } })).toBe(2);
        expect(await store.countThreads({ owner, status: "busy" })).toBe(1);
        expect(await store.countThreads({ owner, ids: [b.threadId] })).toBe(1);
        expect(await store.countThreads({ owner: `user-${randomUUID()}` })).toBe(0);
        await store.markThreadDeleted(b.threadId, iso(T0 + 10));
        expect(await store.countThreads({ owner })).toBe(2);
      });

      it("deletes a thread with its runs, journal and reports, and nothing of another thread", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const other = await threadWithRuns(1);
        for (const run of [...runs, ...other.runs]) {
          await store.appendJournal(run.runId, [journalEntry(run.runId, 1)]);
          await store.saveReport(run.runId, { runId: run.runId });
        }

        expect(await store.deleteThread(thread.threadId)).toBe(true);
        expect(await store.getThread(thread.threadId)).toBeNull();
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0 })).toEqual([]);
        for (const run of runs) {
          expect(await store.getRun(run.runId)).toBeNull();
          expect(await store.readJournal(run.runId)).toEqual([]);
          expect(await store.getReport(run.runId)).toBeNull();
        }
        expect(await store.deleteThread(thread.threadId)).toBe(false);

        const kept = other.runs[0]!;
        expect(await store.getRun(kept.runId)).toEqual(kept);
        expect(await store.readJournal(kept.runId)).toEqual([journalEntry(kept.runId, 1)]);
        expect(await store.getReport(kept.runId)).toEqual({ runId: kept.runId });
      });
    });

    describe("deletion mark", () => {
      it("hides a marked thread from reads and searches, keeps it from updates, and refuses admissions on it", async () => {
        const { thread, runs } = await threadWithRuns(1);
        expect(await store.markThreadDeleted(thread.threadId, iso(T0 + 1))).toBe(true);
        expect(await store.markThreadDeleted(thread.threadId, iso(T0 + 2))).toBe(false);
        expect(await store.markThreadDeleted(randomUUID(), iso(T0 + 2))).toBe(false);
        expect(await store.getThread(thread.threadId)).toBeNull();
        for (const peer of peers) expect(await peer.getThread(thread.threadId)).toBeNull();
        expect(await store.searchThreads({ owner: thread.owner, limit: 10, offset: 0 })).toEqual([]);
        // A run finishing meanwhile sets its thread's status: the mark stays.
        await store.updateThread(thread.threadId, { status: "idle", metadata: { back: true } }, iso(T0 + 3));
        expect(await store.getThread(thread.threadId)).toBeNull();
        const refused = makeRun(thread.threadId, "enqueue", T0 + 4);
        await expect(store.admitRun(refused)).rejects.toMatchObject({ code: "KEEL_ERR_STORE_THREAD_DELETED" });
        expect(await store.getRun(refused.runId)).toBeNull();
        // Its runs are still there for the purge to cancel, and the id stays taken until deleteThread.
        expect(await store.activeRuns(thread.threadId)).toEqual(runs);
        await expect(store.createThread(makeThread({ threadId: thread.threadId }))).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });
        expect(await store.deletedThreads?.(100_000)).toContain(thread.threadId);

        expect(await store.deleteThread(thread.threadId)).toBe(true);
        expect(await store.deletedThreads?.(100_000)).not.toContain(thread.threadId);
        const again = await store.createThread(makeThread({ threadId: thread.threadId }));
        expect(await store.getThread(thread.threadId)).toEqual(again);
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0 })).toEqual([]);
      });

      it("with many admissions racing the mark, each run is either admitted before it (and listed) or refused", async () => {
        const thread = await store.createThread(makeThread());
        const all = [store, ...peers];
        const admissions = Array.from({ length: 20 }, (_, i) => all[i % all.length]!.admitRun(makeRun(thread.threadId, "enqueue", T0 + i)));
        const marked = all[1 % all.length]!.markThreadDeleted(thread.threadId, iso(T0 + 100));
        const results = await Promise.allSettled(admissions);
        expect(await marked).toBe(true);
        const admitted = results.flatMap((r) => (r.status === "fulfilled" && r.value.ok ? [r.value.run.runId] : []));
        for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "KEEL_ERR_STORE_THREAD_DELETED" });
        expect((await store.activeRuns(thread.threadId)).map((r) => r.runId).sort()).toEqual(admitted.sort());
        await store.deleteThread(thread.threadId);
      });
    });

    describe("ended runs", () => {
      it("lists finished runs by their last write in (after, until], oldest first, with a limit", async () => {
        // A window of its own, far from every other test's timestamps (a shared database holds theirs).
        const base = T0 + 10 * 365 * 86_400_000 + Math.floor(Math.random() * 1e9);
        const { thread, runs } = await threadWithRuns(3);
        const first = (await store.claimNext(thread.threadId, "w", TTL, base))!;
        expect(await store.completeRun(first.runId, "w", first.epoch, { status: "success", outcome: outcome("succeeded") }, iso(base + 10))).toBe(true);
        expect(await store.cancelPending(runs[2]!.runId, outcome("cancelled"), iso(base + 20))).toBe(true);
        const second = (await store.claimNext(thread.threadId, "w", TTL, base + 30))!;
        expect(second.runId).toBe(runs[1]!.runId);

        const ids = (list: RunRecord[] | undefined) => list?.map((r) => r.runId);
        expect(ids(await store.endedRuns?.(iso(base), iso(base + 100), 10))).toEqual([first.runId, runs[2]!.runId]);
        expect(ids(await store.endedRuns?.(iso(base + 10), iso(base + 100), 10))).toEqual([runs[2]!.runId]);
        expect(ids(await store.endedRuns?.(iso(base), iso(base + 15), 10))).toEqual([first.runId]);
        expect(ids(await store.endedRuns?.(iso(base), iso(base + 100), 1))).toEqual([first.runId]);
        const [ended] = (await store.endedRuns?.(iso(base), iso(base + 15), 10)) ?? [];
        expect(ended).toEqual(await store.getRun(first.runId));
      });
    });

    describe("admission", () => {
      it("admits a run on an idle thread as pending, persisted before it is returned", async () => {
        const thread = await store.createThread(makeThread());
        const requested = makeRun(thread.threadId, "reject", T0, { status: "running", owner: "sneaky", leaseExpiresAt: iso(T0), outcome: outcome("succeeded") });
        const result = await store.admitRun(requested);

        const { owner: _o, leaseExpiresAt: _l, outcome: _x, ...rest } = requested;
        // Due at once (its createdAt) unless told otherwise; the sequence is the store's.
        expect(result).toEqual({ ok: true, run: { ...rest, status: "pending", dueAt: iso(T0), sequence: expect.any(Number) }, active: [] });
        if (!result.ok) return;
        expect(await store.getRun(requested.runId)).toEqual(result.run);
        for (const peer of peers) expect(await peer.getRun(requested.runId)).toEqual(result.run);
      });

      it("under reject, refuses while a run is pending and stores nothing", async () => {
        const { thread, runs } = await threadWithRuns(1, "reject");
        const refused = makeRun(thread.threadId, "reject", T0 + 5000);
        expect(await store.admitRun(refused)).toEqual({ ok: false, active: runs[0] });
        expect(await store.getRun(refused.runId)).toBeNull();
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0 })).toEqual(runs);
      });

      it("under reject, refuses while a run is running, naming the running one", async () => {
        const { thread } = await threadWithRuns(2);
        const running = await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000);
        expect(running?.status).toBe("running");
        const result = await store.admitRun(makeRun(thread.threadId, "reject", T0 + 20_000));
        expect(result).toEqual({ ok: false, active: running });
      });

      it.each(["interrupt", "rollback", "enqueue"] as const)("under %s, admits and returns the active runs, oldest first", async (strategy) => {
        const { thread, runs } = await threadWithRuns(2);
        const running = await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000);
        const result = await store.admitRun(makeRun(thread.threadId, strategy, T0 + 20_000));
        expect(result.ok).toBe(true);
        expect(result.ok && result.active).toEqual([running, runs[1]]);
        expect((await store.activeRuns(thread.threadId)).map((r) => r.status)).toEqual(["running", "pending", "pending"]);
      });

      it.each(["interrupt", "rollback"] as const)("under %s with AdmissionReplace, supersedes the pending runs in the admission and leaves only the running one", async (strategy) => {
        const { thread, runs } = await threadWithRuns(3);
        const running = await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000);
        const replace = { outcome: outcome("cancelled", "superseded"), now: iso(T0 + 19_000), rollbackChecked: [running!.runId] };
        const result = await store.admitRun(makeRun(thread.threadId, strategy, T0 + 20_000), {}, undefined, replace);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.active).toEqual([running]);
        const superseded = [runs[1]!, runs[2]!].map((r) => ({ ...r, status: "interrupted", outcome: outcome("cancelled", "superseded"), updatedAt: iso(T0 + 19_000) }));
        expect(result.superseded).toEqual(superseded);
        for (const r of superseded) expect(await store.getRun(r.runId)).toEqual(r);
        expect((await store.activeRuns(thread.threadId)).map((r) => [r.runId, r.status])).toEqual([
          [running!.runId, "running"],
          [result.run.runId, "pending"],
        ]);
      });

      it("with AdmissionReplace on a thread whose runs are all pending, starts the new run at admission", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const replace = { outcome: outcome("cancelled"), now: iso(T0 + 19_000), rollbackChecked: [] };
        const start = { owner: "worker-1", ttlMs: TTL, now: T0 + 20_000 };
        const result = await store.admitRun(makeRun(thread.threadId, "interrupt", T0 + 20_000), {}, start, replace);
        expect(result.ok && result.run.status).toBe("running");
        expect(result.ok && result.active).toEqual([]);
        expect(result.ok && result.superseded?.map((r) => r.runId)).toEqual(runs.map((r) => r.runId));
      });

      it("under rollback with AdmissionReplace, refuses before writing anything while a running run was not checked", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const running = await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000);
        const refused = makeRun(thread.threadId, "rollback", T0 + 20_000);
        const result = await store.admitRun(refused, {}, undefined, { outcome: outcome("cancelled"), now: iso(T0 + 19_000), rollbackChecked: [] });
        expect(result).toEqual({ ok: false, active: running });
        expect(await store.getRun(refused.runId)).toBeNull();
        expect(await store.getRun(runs[1]!.runId)).toEqual(runs[1]);
      });

      it("admits under reject once the earlier runs are finished", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const running = (await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000))!;
        expect(await store.completeRun(running.runId, "worker-1", running.epoch, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 11_000))).toBe(true);
        expect(await store.cancelPending(runs[1]!.runId, outcome("cancelled"), iso(T0 + 12_000))).toBe(true);
        const result = await store.admitRun(makeRun(thread.threadId, "reject", T0 + 20_000));
        expect(result.ok && result.active).toEqual([]);
      });

      it("throws for an unknown thread and stores nothing", async () => {
        const run = makeRun(randomUUID(), "enqueue");
        await expect(store.admitRun(run)).rejects.toMatchObject({ code: "KEEL_ERR_STORE_THREAD_NOT_FOUND" });
        expect(await store.getRun(run.runId)).toBeNull();
      });

      it("throws for a run id already taken and keeps the first run", async () => {
        const { thread, runs } = await threadWithRuns(1);
        await expect(store.admitRun({ ...runs[0]!, assistantId: "other" })).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0 })).toEqual(runs);
      });
    });

    describe("reading runs", () => {
      it("lists a thread's runs newest first, with limit, offset and status", async () => {
        const { thread, runs } = await threadWithRuns(3);
        const [r0, r1, r2] = runs as [RunRecord, RunRecord, RunRecord];
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0 })).toEqual([r2, r1, r0]);
        expect(await store.listRuns(thread.threadId, { limit: 2, offset: 1 })).toEqual([r1, r0]);
        const claimed = await store.claimNext(thread.threadId, "w", TTL, T0 + 10_000);
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0, status: "running" })).toEqual([claimed]);
        expect(await store.listRuns(thread.threadId, { limit: 10, offset: 0, status: "pending" })).toEqual([r2, r1]);
        expect(await store.getRun(randomUUID())).toBeNull();
      });

      it("lists a user's recent runs across threads (recentRuns, when the store has it), newest first, filtered", async () => {
        if (!store.recentRuns) return;
        const user = `feed-${randomUUID()}`;
        const t1 = await store.createThread(makeThread({ owner: user }));
        const t2 = await store.createThread(makeThread({ owner: user }));
        const admit = async (threadId: string, at: number, overrides: Partial<RunRecord> = {}) => {
          const admitted = await store.admitRun(makeRun(threadId, "enqueue", at, { user, ...overrides }));
          if (!admitted.ok) throw new Error("setup admission refused");
          return admitted.run;
        };
        const a = await admit(t1.threadId, T0);
        const b = await admit(t2.threadId, T0 + 1000, { assistantId: "other" });
        const c = await admit(t1.threadId, T0 + 2000);
        await store.admitRun(makeRun(t1.threadId, "enqueue", T0 + 3000, { user: "someone-else" }));
        const claimed = await store.claimNext(t2.threadId, "w", TTL, T0 + 10_000);
        expect(await store.recentRuns({ user, limit: 10 })).toEqual([c, claimed, a]);
        expect(await store.recentRuns({ user, limit: 2 })).toEqual([c, claimed]);
        expect(await store.recentRuns({ user, limit: 10, statuses: ["running"] })).toEqual([claimed]);
        expect(await store.recentRuns({ user, limit: 10, statuses: ["pending", "running"], assistantId: "lead" })).toEqual([c, a]);
        expect(await store.recentRuns({ user, limit: 10, threadId: t2.threadId })).toEqual([claimed]);
        expect(b.runId).toBe(claimed!.runId);
      });

      it("lists active runs (pending and running) oldest first, without finished ones", async () => {
        const { thread, runs } = await threadWithRuns(3);
        expect(await store.cancelPending(runs[1]!.runId, outcome("cancelled"), iso(T0 + 5))).toBe(true);
        const claimed = await store.claimNext(thread.threadId, "w", TTL, T0 + 10_000);
        expect(await store.activeRuns(thread.threadId)).toEqual([claimed, runs[2]]);
        expect(await store.activeRuns(randomUUID())).toEqual([]);
      });
    });

    describe("claims and leases", () => {
      it("claims the run admitted first: running, owned, epoch + 1, lease until now + ttl", async () => {
        const thread = await store.createThread(makeThread());
        // Admitted out of creation order: the claim follows admission order, not createdAt.
        const later = await store.admitRun(makeRun(thread.threadId, "enqueue", T0 + 2000));
        const earlier = await store.admitRun(makeRun(thread.threadId, "enqueue", T0 + 1000));
        if (!later.ok || !earlier.ok) throw new Error("setup admission refused");
        expect(later.run.sequence!).toBeLessThan(earlier.run.sequence!);

        const now = T0 + 10_000;
        const claimed = await store.claimNext(thread.threadId, "worker-1", TTL, now);
        expect(claimed).toEqual({ ...later.run, status: "running", owner: "worker-1", epoch: 1, leaseExpiresAt: iso(now + TTL), updatedAt: iso(now) });
        expect(await store.getRun(later.run.runId)).toEqual(claimed);
        expect((await store.activeRuns(thread.threadId)).map((r) => r.runId)).toEqual([later.run.runId, earlier.run.runId]);
      });

      it("breaks a createdAt tie by admission order", async () => {
        const thread = await store.createThread(makeThread());
        const first = await store.admitRun(makeRun(thread.threadId, "enqueue", T0));
        const second = await store.admitRun(makeRun(thread.threadId, "enqueue", T0));
        if (!first.ok || !second.ok) throw new Error("setup admission refused");
        expect((await store.claimNext(thread.threadId, "w", TTL, T0 + 1))?.runId).toBe(first.run.runId);
        expect((await store.activeRuns(thread.threadId)).map((r) => r.runId)).toEqual([first.run.runId, second.run.runId]);
      });

      it("claims nothing while a run of the thread is running, nor when none is pending", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const first = (await store.claimNext(thread.threadId, "worker-1", TTL, T0 + 10_000))!;
        expect(first.runId).toBe(runs[0]!.runId);
        expect(await store.claimNext(thread.threadId, "worker-2", TTL, T0 + 10_001)).toBeNull();
        expect((await store.getRun(runs[1]!.runId))?.status).toBe("pending");

        expect(await store.completeRun(first.runId, "worker-1", 1, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 11_000))).toBe(true);
        const second = await store.claimNext(thread.threadId, "worker-2", TTL, T0 + 12_000);
        expect(second).toMatchObject({ runId: runs[1]!.runId, status: "running", owner: "worker-2", epoch: 1 });
        expect(await store.completeRun(second!.runId, "worker-2", 1, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 13_000))).toBe(true);
        expect(await store.claimNext(thread.threadId, "worker-2", TTL, T0 + 14_000)).toBeNull();
        expect(await store.claimNext(randomUUID(), "worker-2", TTL, T0 + 14_000)).toBeNull();
      });

      it("extends the lease on heartbeat, only for the holder's owner and epoch", async () => {
        const { thread } = await threadWithRuns(1);
        const run = (await store.claimNext(thread.threadId, "worker-1", TTL, T0))!;

        expect(await store.heartbeat(run.runId, "worker-1", run.epoch, TTL, T0 + 10_000)).toBe(true);
        expect(await store.getRun(run.runId)).toEqual({ ...run, leaseExpiresAt: iso(T0 + 10_000 + TTL), updatedAt: iso(T0 + 10_000) });

        expect(await store.heartbeat(run.runId, "worker-2", run.epoch, TTL, T0 + 20_000)).toBe(false);
        expect(await store.heartbeat(run.runId, "worker-1", run.epoch - 1, TTL, T0 + 20_000)).toBe(false);
        expect(await store.heartbeat(run.runId, "worker-1", run.epoch + 1, TTL, T0 + 20_000)).toBe(false);
        expect(await store.heartbeat(randomUUID(), "worker-1", run.epoch, TTL, T0 + 20_000)).toBe(false);
        expect((await store.getRun(run.runId))?.leaseExpiresAt).toBe(iso(T0 + 10_000 + TTL));
      });

      it("refuses a heartbeat for a pending or finished run", async () => {
        const { thread, runs } = await threadWithRuns(2);
        expect(await store.heartbeat(runs[1]!.runId, "worker-1", 0, TTL, T0)).toBe(false);
        const run = (await store.claimNext(thread.threadId, "worker-1", TTL, T0))!;
        await store.completeRun(run.runId, "worker-1", run.epoch, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 1));
        expect(await store.heartbeat(run.runId, "worker-1", run.epoch, TTL, T0 + 2)).toBe(false);
      });
    });

    describe("terminal writes", () => {
      it("completes a run held by owner+epoch: status, outcome, updatedAt; the lease ends", async () => {
        const { thread } = await threadWithRuns(1);
        const run = (await store.claimNext(thread.threadId, "worker-1", TTL, T0))!;
        const partial = { ...outcome("partial", "half"), stopReasons: [{ reason: "turn_capped", by: "kernel" }], primaryStopReason: "turn_capped" };

        expect(await store.completeRun(run.runId, "worker-1", run.epoch, { status: "success", outcome: partial }, iso(T0 + 5))).toBe(true);
        const { leaseExpiresAt: _lease, ...held } = run;
        expect(await store.getRun(run.runId)).toEqual({ ...held, status: "success", outcome: partial, updatedAt: iso(T0 + 5) });
        // A second terminal write finds the run no longer running.
        expect(await store.completeRun(run.runId, "worker-1", run.epoch, { status: "error", outcome: outcome("failed") }, iso(T0 + 6))).toBe(false);
        expect((await store.getRun(run.runId))?.status).toBe("success");
      });

      it("refuses a terminal write from the wrong owner or a stale epoch and changes nothing", async () => {
        const { thread } = await threadWithRuns(1);
        const run = (await store.claimNext(thread.threadId, "worker-1", TTL, T0))!;
        const update = { status: "error" as const, outcome: outcome("failed") };

        expect(await store.completeRun(run.runId, "worker-2", run.epoch, update, iso(T0 + 1))).toBe(false);
        expect(await store.completeRun(run.runId, "worker-1", run.epoch - 1, update, iso(T0 + 1))).toBe(false);
        expect(await store.completeRun(randomUUID(), "worker-1", run.epoch, update, iso(T0 + 1))).toBe(false);
        expect(await store.getRun(run.runId)).toEqual(run);
      });

      it("refuses completing a pending run", async () => {
        const { runs } = await threadWithRuns(1);
        expect(await store.completeRun(runs[0]!.runId, "worker-1", 0, { status: "success", outcome: outcome("succeeded") }, iso(T0))).toBe(false);
        expect(await store.getRun(runs[0]!.runId)).toEqual(runs[0]);
      });

      it("cancels a pending run (interrupted), but not a running or an already cancelled one", async () => {
        const { thread, runs } = await threadWithRuns(2);
        const running = (await store.claimNext(thread.threadId, "worker-1", TTL, T0))!;
        const cancelled = outcome("cancelled", "");

        expect(await store.cancelPending(runs[1]!.runId, cancelled, iso(T0 + 1))).toBe(true);
        expect(await store.getRun(runs[1]!.runId)).toEqual({ ...runs[1], status: "interrupted", outcome: cancelled, updatedAt: iso(T0 + 1) });
        expect(await store.cancelPending(runs[1]!.runId, cancelled, iso(T0 + 2))).toBe(false);
        expect(await store.cancelPending(running.runId, cancelled, iso(T0 + 2))).toBe(false);
        expect(await store.getRun(running.runId)).toEqual(running);
        expect(await store.cancelPending(randomUUID(), cancelled, iso(T0 + 2))).toBe(false);
      });
    });

    describe("expired leases", () => {
      it("lists running runs whose lease expired and expires them by epoch CAS", async () => {
        const a = await threadWithRuns(1);
        const b = await threadWithRuns(1);
        const runA = (await store.claimNext(a.thread.threadId, "worker-1", 1000, T0))!;
        const runB = (await store.claimNext(b.thread.threadId, "worker-1", 5000, T0))!;
        const mine = (runs: RunRecord[]) => runs.filter((r) => r.runId === runA.runId || r.runId === runB.runId);

        expect(mine(await store.expiredRuns(T0 + 1000))).toEqual([]); // expires at T0+1000: not before
        expect(mine(await store.expiredRuns(T0 + 1001))).toEqual([runA]);
        expect(mine(await store.expiredRuns(T0 + 6000))).toEqual([runA, runB]);

        const failed = { ...outcome("failed", ""), stopReasons: [{ reason: "lease_expired", by: "reaper" }], primaryStopReason: "lease_expired" };
        expect(await store.expireRun(runB.runId, runB.epoch, failed, T0 + 4000)).toBe(false); // lease still valid
        expect(await store.expireRun(runA.runId, runA.epoch + 1, failed, T0 + 2000)).toBe(false); // stale epoch
        expect(await store.expireRun(runA.runId, runA.epoch, failed, T0 + 2000)).toBe(true);

        const { leaseExpiresAt: _lease, ...held } = runA;
        expect(await store.getRun(runA.runId)).toEqual({ ...held, status: "error", outcome: failed, updatedAt: iso(T0 + 2000) });
        expect(mine(await store.expiredRuns(T0 + 6000))).toEqual([runB]);
        expect(await store.expireRun(runA.runId, runA.epoch, failed, T0 + 3000)).toBe(false);

        // The worker that lost the lease can neither heartbeat nor overwrite the outcome.
        expect(await store.heartbeat(runA.runId, "worker-1", runA.epoch, 1000, T0 + 2500)).toBe(false);
        expect(await store.completeRun(runA.runId, "worker-1", runA.epoch, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 2500))).toBe(false);
        expect((await store.getRun(runA.runId))?.outcome).toEqual(failed);
      });

      it("does not expire a run whose lease a heartbeat extended in time", async () => {
        const { thread } = await threadWithRuns(1);
        const run = (await store.claimNext(thread.threadId, "worker-1", 1000, T0))!;
        expect(await store.heartbeat(run.runId, "worker-1", run.epoch, 1000, T0 + 900)).toBe(true);
        expect(await store.expireRun(run.runId, run.epoch, outcome("failed"), T0 + 1500)).toBe(false);
        expect((await store.getRun(run.runId))?.status).toBe("running");
      });

      it("sets the wire status from the outcome", async () => {
        const { thread } = await threadWithRuns(1);
        const run = (await store.claimNext(thread.threadId, "worker-1", 1000, T0))!;
        expect(await store.expireRun(run.runId, run.epoch, outcome("timed_out"), T0 + 2000)).toBe(true);
        expect((await store.getRun(run.runId))?.status).toBe("timeout");
      });
    });

    describe("journal and reports", () => {
      it("reads journal entries back in append order, per run", async () => {
        const { runs } = await threadWithRuns(2);
        const [a, b] = runs as [RunRecord, RunRecord];
        const entryWithUsage = { ...journalEntry(a.runId, 2, "tool_call"), usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, argsSha256: "ab".repeat(32) };
        await store.appendJournal(a.runId, [journalEntry(a.runId, 1), entryWithUsage]);
        await store.appendJournal(b.runId, [journalEntry(b.runId, 1, "lifecycle")]);
        await store.appendJournal(a.runId, []);
        await store.appendJournal(a.runId, [journalEntry(a.runId, 3, "guard")]);

        expect(await store.readJournal(a.runId)).toEqual([journalEntry(a.runId, 1), entryWithUsage, journalEntry(a.runId, 3, "guard")]);
        expect(await store.readJournal(b.runId)).toEqual([journalEntry(b.runId, 1, "lifecycle")]);
        expect(await store.readJournal(randomUUID())).toEqual([]);
      });

      it("saves, replaces and reads a run's report", async () => {
        const { runs } = await threadWithRuns(1);
        const runId = runs[0]!.runId;
        expect(await store.getReport(runId)).toBeNull();
        await store.saveReport(runId, { contract: "run-report", version: 1, status: { status: "partial" }, list: [1, "two", null] });
        expect(await store.getReport(runId)).toEqual({ contract: "run-report", version: 1, status: { status: "partial" }, list: [1, "two", null] });
        await store.saveReport(runId, { contract: "run-report", version: 1, replaced: true });
        expect(await store.getReport(runId)).toEqual({ contract: "run-report", version: 1, replaced: true });
      });
    });

    describe("values, not references", () => {
      it("returns copies: editing a returned record does not edit the store", async () => {
        const { thread, runs } = await threadWithRuns(1);
        const read = (await store.getThread(thread.threadId))!;
        read.metadata.injected = true;
        (runs[0]!.request.metadata as Record<string, unknown>).injected = true;
        expect((await store.getThread(thread.threadId))?.metadata).toEqual({});
        expect((await store.getRun(runs[0]!.runId))?.request.metadata).toEqual({ origin: "test" });
      });
    });

    describe("the claim queue", () => {
      /** An empty database for one test: `claimDue` looks at every thread. */
      async function emptyQueue() {
        const { stores, dispose } = await options.makeEmptyStores();
        disposals.push(dispose);
        const [queue, ...others] = stores as [RunStore, ...RunStore[]];
        await queue.init();
        return { queue, claimers: [queue, ...others] };
      }
      const disposals: Array<() => Promise<void>> = [];
      afterAll(async () => {
        for (const dispose of disposals.splice(0)) await dispose();
      });

      async function admit(queue: RunStore, threadId: string, createdAtMs: number, dueAtMs?: number, overrides: Partial<RunRecord> = {}): Promise<RunRecord> {
        const run = makeRun(threadId, "enqueue", createdAtMs, { ...(dueAtMs === undefined ? {} : { dueAt: iso(dueAtMs) }), ...overrides });
        const result = await queue.admitRun(run);
        if (!result.ok) throw new Error("setup admission refused");
        return result.run;
      }
      const done = (queue: RunStore, run: RunRecord, at: number) => queue.completeRun(run.runId, run.owner!, run.epoch, { status: "success", outcome: outcome("succeeded") }, iso(at));

      it("claims by due time, then admission sequence, one run per idle thread, never before it is due", async () => {
        const { queue } = await emptyQueue();
        const [a, b, c, d] = await Promise.all([0, 1, 2, 3].map(() => queue.createThread(makeThread())));
        const a1 = await admit(queue, a!.threadId, T0, T0 + 2000);
        const b1 = await admit(queue, b!.threadId, T0 + 500, T0 + 1000);
        const c1 = await admit(queue, c!.threadId, T0 + 1000); // due at its createdAt: the same due time as b1, admitted later
        const c2 = await admit(queue, c!.threadId, T0); // stamped earlier, admitted later: runs after c1
        const d1 = await admit(queue, d!.threadId, T0, T0 + 60_000);
        expect(c1.dueAt).toBe(iso(T0 + 1000));
        expect(d1.dueAt).toBe(iso(T0 + 60_000));

        const now = T0 + 3000;
        const first = await queue.claimDue("worker-1", TTL, now);
        expect(first).toEqual({ ...b1, status: "running", owner: "worker-1", epoch: 1, leaseExpiresAt: iso(now + TTL), updatedAt: iso(now) });
        expect((await queue.claimDue("worker-1", TTL, now))?.runId).toBe(c1.runId);
        expect((await queue.claimDue("worker-2", TTL, now))?.runId).toBe(a1.runId);
        // c2 waits for c1 (one running run per thread); d1 is not due.
        expect(await queue.claimDue("worker-2", TTL, now)).toBeNull();
        expect(await queue.claimNext(d!.threadId, "worker-2", TTL, now)).toBeNull();

        const claimedC1 = (await queue.getRun(c1.runId))!;
        expect(await done(queue, claimedC1, now + 1)).toBe(true);
        expect((await queue.claimDue("worker-2", TTL, now + 2))?.runId).toBe(c2.runId);
        expect(await queue.claimDue("worker-2", TTL, T0 + 59_999)).toBeNull();
        expect((await queue.claimDue("worker-2", TTL, T0 + 60_000))?.runId).toBe(d1.runId);
        expect(await queue.claimDue("worker-2", TTL, T0 + 70_000)).toBeNull();
      });

      it("per thread: the due run admitted first; a run not yet due lets a later due one pass", async () => {
        const { queue } = await emptyQueue();
        const thread = await queue.createThread(makeThread());
        const scheduled = await admit(queue, thread.threadId, T0, T0 + 10_000);
        const now1 = await admit(queue, thread.threadId, T0 + 2);
        const now2 = await admit(queue, thread.threadId, T0 + 1); // stamped earlier, admitted later
        const first = (await queue.claimNext(thread.threadId, "w", TTL, T0 + 5))!;
        expect(first.runId).toBe(now1.runId);
        expect(await done(queue, first, T0 + 6)).toBe(true);
        const second = (await queue.claimDue("w", TTL, T0 + 7))!;
        expect(second.runId).toBe(now2.runId);
        expect(await done(queue, second, T0 + 8)).toBe(true);
        expect(await queue.claimDue("w", TTL, T0 + 9_999)).toBeNull();
        expect((await queue.claimDue("w", TTL, T0 + 10_000))?.runId).toBe(scheduled.runId);
      });

      it("starts an admitted run in the admission for the given worker when its thread is idle and it is due at once", async () => {
        const { queue } = await emptyQueue();
        const [idle, scheduled] = await Promise.all([0, 1].map(() => queue.createThread(makeThread())));
        const now = T0 + 100;
        const start = { owner: "worker-1", ttlMs: TTL, now };
        const requested = makeRun(idle!.threadId, "enqueue", T0);
        const result = await queue.admitRun(requested, {}, start);
        expect(result).toEqual({
          ok: true,
          run: { ...requested, status: "running", owner: "worker-1", epoch: 1, leaseExpiresAt: iso(now + TTL), updatedAt: iso(now), dueAt: iso(T0), sequence: expect.any(Number) },
          active: [],
        });
        expect(result.ok && (await queue.getRun(requested.runId))).toEqual(result.ok && result.run);
        // Behind an active run, or scheduled for later: admitted pending.
        const queued = await queue.admitRun(makeRun(idle!.threadId, "enqueue", T0 + 1), {}, start);
        expect(queued.ok && queued.run.status).toBe("pending");
        const later = await queue.admitRun(makeRun(scheduled!.threadId, "enqueue", T0 + 2, { dueAt: iso(T0 + 60_000) }), {}, start);
        expect(later.ok && later.run.status).toBe("pending");
        expect(await queue.claimDue("worker-2", TTL, now)).toBeNull();
      });

      it("a run due at once is claimable by a claimer whose clock is behind its createdAt", async () => {
        const { queue } = await emptyQueue();
        const thread = await queue.createThread(makeThread());
        const run = await admit(queue, thread.threadId, T0 + 5000); // stamped by a clock 5 s ahead
        expect(run.dueAt).toBe(iso(T0 + 5000));
        expect((await queue.claimDue("w", TTL, T0))?.runId).toBe(run.runId);
      });

      it("never gives one run to two concurrent claimers (claimers spread over every connection)", async () => {
        const { queue, claimers } = await emptyQueue();
        const threads = await Promise.all(Array.from({ length: 12 }, () => queue.createThread(makeThread())));
        const heads: string[] = [];
        for (const [i, t] of threads.entries()) {
          heads.push((await admit(queue, t.threadId, T0 + i)).runId);
          await admit(queue, t.threadId, T0 + i); // waits behind the head
        }
        const claimed: RunRecord[] = [];
        // Rounds of 8 concurrent claims until two rounds in a row find nothing (bounded).
        for (let round = 0, empty = 0; round < 40 && empty < 2; round++) {
          const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claimers[i % claimers.length]!.claimDue(`worker-${i}`, TTL, T0 + 1000)));
          const won = results.filter((r): r is RunRecord => r !== null);
          claimed.push(...won);
          empty = won.length === 0 ? empty + 1 : 0;
        }
        const ids = claimed.map((r) => r.runId);
        expect(new Set(ids).size).toBe(ids.length);
        expect([...ids].sort()).toEqual([...heads].sort());
        for (const run of claimed) expect(await queue.getRun(run.runId)).toMatchObject({ status: "running", owner: run.owner, epoch: 1 });
        expect(await queue.countRuns?.("pending")).toBe(12);
      });
    });

    describe("concurrency", () => {
      const workers = () => [store, ...peers];

      it("admits exactly one of 50 concurrent runs under reject on one thread", async () => {
        const thread = await store.createThread(makeThread());
        const all = workers();
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => all[i % all.length]!.admitRun(makeRun(thread.threadId, "reject", T0 + i))),
        );
        const admitted = results.filter((r) => r.ok);
        expect(admitted).toHaveLength(1);
        const winner = admitted[0]!.ok ? admitted[0]!.run : undefined;
        for (const refused of results.filter((r) => !r.ok)) expect(refused).toEqual({ ok: false, active: winner });
        expect(await store.listRuns(thread.threadId, { limit: 100, offset: 0 })).toEqual([winner]);
      });

      it("limits a user's active runs across threads inside admission; the runs an interrupt replaces do not count", async () => {
        const user = `u-${randomUUID()}`;
        const [a, b, c] = await Promise.all([0, 1, 2].map(() => store.createThread(makeThread({ owner: user }))));
        const limit = { maxActivePerUser: 2 };
        expect((await store.admitRun(makeRun(a!.threadId, "reject", T0, { user }), limit)).ok).toBe(true);
        expect((await store.admitRun(makeRun(b!.threadId, "reject", T0 + 1, { user }), limit)).ok).toBe(true);
        await expect(store.admitRun(makeRun(c!.threadId, "reject", T0 + 2, { user }), limit)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
        expect(await store.activeRuns(c!.threadId)).toEqual([]);
        expect((await store.admitRun(makeRun(a!.threadId, "interrupt", T0 + 3, { user }), limit)).ok).toBe(true);
        await expect(store.admitRun(makeRun(a!.threadId, "enqueue", T0 + 4, { user }), limit)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
        // Another user is not affected, and without a limit nothing is counted.
        const other = await store.createThread(makeThread());
        expect((await store.admitRun(makeRun(other.threadId, "reject", T0 + 5, { user: `other-${randomUUID()}` }), limit)).ok).toBe(true);
        expect((await store.admitRun(makeRun(c!.threadId, "reject", T0 + 6, { user }))).ok).toBe(true);
      });

      it("counts running and due runs toward the user's limit, not runs scheduled for later; an ended run stops counting", async () => {
        const user = `u-${randomUUID()}`;
        const [a, b, c, d] = await Promise.all([0, 1, 2, 3].map(() => store.createThread(makeThread({ owner: user }))));
        const limit = { maxActivePerUser: 1 };
        const r1 = await store.admitRun(makeRun(a!.threadId, "reject", T0, { user }), limit);
        // Scheduled for later: admitted although the user is at the limit, and not counted.
        const later = await store.admitRun(makeRun(b!.threadId, "reject", T0 + 1, { user, dueAt: iso(T0 + 60_000) }), limit);
        expect(r1.ok && later.ok).toBe(true);
        await expect(store.admitRun(makeRun(c!.threadId, "reject", T0 + 2, { user }), limit)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
        const running = (await store.claimNext(a!.threadId, "w", TTL, T0 + 3))!;
        await expect(store.admitRun(makeRun(c!.threadId, "reject", T0 + 4, { user }), limit)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
        expect(await store.completeRun(running.runId, "w", running.epoch, { status: "success", outcome: outcome("succeeded") }, iso(T0 + 5))).toBe(true);
        const r3 = await store.admitRun(makeRun(c!.threadId, "reject", T0 + 6, { user }), limit);
        expect(r3.ok).toBe(true);
        expect(r3.ok && (await store.cancelPending(r3.run.runId, outcome("cancelled"), iso(T0 + 7)))).toBe(true);
        // Once due, the scheduled run counts.
        await expect(store.admitRun(makeRun(d!.threadId, "reject", T0 + 60_000, { user }), limit)).rejects.toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
        expect((await store.admitRun(makeRun(d!.threadId, "reject", T0 + 59_999, { user }), limit)).ok).toBe(true);
      });

      it("admits exactly the limit of 20 concurrent runs of one user on different threads", async () => {
        const user = `u-${randomUUID()}`;
        const threads = await Promise.all(Array.from({ length: 20 }, () => store.createThread(makeThread({ owner: user }))));
        const all = workers();
        const results = await Promise.allSettled(
          threads.map((t, i) => all[i % all.length]!.admitRun(makeRun(t.threadId, "reject", T0 + i, { user }), { maxActivePerUser: 5 })),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
        for (const r of results.filter((x) => x.status === "rejected")) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "KEEL_ERR_RUN_LIMIT" });
      });

      it("lets exactly one of 20 concurrent claims on one thread win", async () => {
        const { thread } = await threadWithRuns(3);
        const all = workers();
        const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => all[i % all.length]!.claimNext(thread.threadId, `worker-${i}`, TTL, T0 + 10_000)));
        const won = claims.filter((c) => c !== null);
        expect(won).toHaveLength(1);
        expect((await store.activeRuns(thread.threadId)).map((r) => r.status)).toEqual(["running", "pending", "pending"]);
      });
    });
  });
}
