/**
 * store-sql on PostgreSQL (KEEL_TEST_PG_URL): a burst of admissions on one thread must not
 * take the store's whole connection pool. Admissions of one thread serialize on its row
 * lock; before the per-thread admission queue (keyed-queue.ts) each one waited there on a
 * pooled connection of its own, so 200 concurrent creations on one thread held every
 * connection of each worker, and its heartbeats queued behind them until a lease expired
 * (the nemesis scenario concurrent-interrupt: one run `lease_expired`).
 * Skipped locally with a printed reason when PostgreSQL cannot be used; a failure under CI=true.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRecord, RunStore } from "../../../kernel/runs/types.js";
import { createSqlRunStore } from "../../../plugins/store-sql/index.js";
import { postgresUnavailable, PG_URL } from "../../e2e/services.js";
import { scratchDatabase } from "./scratch-database.js";

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) console.warn(`skipping the store-sql admission burst test: ${skipReason}`);

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

/** More admissions than the pool has connections (MikroORM's default pool: at most 10). */
const BURST = 25;
const iso = (ms: number) => new Date(ms).toISOString();

function hangGuard<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

describe.skipIf(skipReason !== null)("store-sql on PostgreSQL: a burst of admissions on one thread", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it("waits in the store's per-thread queue, holding one pooled connection: the store's other calls still answer", async () => {
    const db = await scratchDatabase(PG_URL, "keel_burst");
    cleanups.push(db.drop);
    const store: RunStore = await createSqlRunStore(db.url);
    cleanups.push(() => store.close());
    const threadId = randomUUID();
    const now = Date.parse("2030-01-01T00:00:00.000Z");
    await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: iso(now), updatedAt: iso(now) });

    // Another session holds the thread's row lock, as another worker's admission would.
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query("begin");
    await holder.query("select thread_id from keel_threads where thread_id = $1 for update", [threadId]);

    const run = (i: number): RunRecord => ({
      runId: randomUUID(), threadId, assistantId: "lead", status: "pending", multitaskStrategy: "enqueue", epoch: 0,
      createdAt: iso(now + i), updatedAt: iso(now + i), user: "alice", request: { assistantId: "lead", input: `attempt ${i}` },
    });
    const admissions = Array.from({ length: BURST }, (_, i) => store.admitRun(run(i)));

    const waiting = async () =>
      Number((await holder.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()")).rows[0]!.n);
    for (let i = 0; i < 400 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));

    // The store still has connections for everything else (a heartbeat, a read) while the burst waits.
    expect(await hangGuard(store.getRun(randomUUID()), "a read during the burst")).toBeNull();
    expect(await waiting()).toBe(1);

    await holder.query("commit");
    const results = await Promise.all(admissions);
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await store.activeRuns(threadId)).map((r) => r.runId)).toEqual(results.map((r) => (r.ok ? r.run.runId : "")));
  });

  it.each(["interrupt", "rollback"] as const)("%s: a pending run claimed while the admission supersedes the queue is left to cancel (interrupt) or refuses it with nothing written (rollback)", async (strategy) => {
    const db = await scratchDatabase(PG_URL, "keel_claimrace");
    cleanups.push(db.drop);
    const store: RunStore = await createSqlRunStore(db.url);
    cleanups.push(() => store.close());
    const threadId = randomUUID();
    const now = Date.parse("2030-01-01T00:00:00.000Z");
    await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: iso(now), updatedAt: iso(now) });
    const make = (i: number, multitaskStrategy: RunRecord["multitaskStrategy"]): RunRecord => ({
      runId: randomUUID(), threadId, assistantId: "lead", status: "pending", multitaskStrategy, epoch: 0,
      createdAt: iso(now + i), updatedAt: iso(now + i), user: "alice", request: { assistantId: "lead", input: `attempt ${i}` },
    });
    const [p, q] = [make(1, "enqueue"), make(2, "enqueue")];
    for (const r of [p, q]) expect((await store.admitRun(r)).ok).toBe(true);

    // A claimer (another worker) holds the oldest pending run's row: the admission's UPDATE waits on it.
    const claimer = new Client({ connectionString: db.url });
    await claimer.connect();
    cleanups.push(() => claimer.end());
    await claimer.query("begin");
    await claimer.query("select id from keel_runs where run_id = $1 for update", [p.runId]);
    const replacing = make(3, strategy);
    const admission = store.admitRun(replacing, {}, { owner: "worker-2", ttlMs: 30_000, now: now + 3 }, { outcome: { contract: "status", version: 2, status: "cancelled", stopReasons: [], text: "superseded" }, now: iso(now + 3), rollbackChecked: [] });
    const waiting = async () =>
      Number((await claimer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()")).rows[0]!.n);
    for (let i = 0; i < 400 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await waiting()).toBe(1);
    await claimer.query("update keel_runs set status = 'running', owner = 'worker-1', epoch = 1, lease_expires_at = $2 where run_id = $1", [p.runId, iso(now + 60_000)]);
    await claimer.query("commit");

    const result = await hangGuard(admission, "the admission");
    if (strategy === "interrupt") {
      // Before: `active` came out empty, the run was inserted running and broke the one-running index (409).
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.run.status).toBe("pending");
      expect(result.superseded?.map((r) => r.runId)).toEqual([q.runId]);
      expect(result.active.map((r) => [r.runId, r.status])).toEqual([[p.runId, "running"]]);
    } else {
      expect(result).toMatchObject({ ok: false, active: { runId: p.runId, status: "running" } });
      expect(await store.getRun(replacing.runId)).toBeNull();
      expect((await store.getRun(q.runId))!.status).toBe("pending");
    }
  });
});
