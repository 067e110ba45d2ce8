/**
 * The claim queue as raw SQL (kernel/runs/README.md, "The claim queue"): a claim turns
 * one due pending run into a running one under this worker's lease.
 *
 * Order: a thread's next run is its due pending run (`due_at` null — due at once — or ≤ now)
 * with the lowest `id` — the admission sequence — and only while none of its runs is
 * running; across threads, the earliest due time (`coalesce(due_at, created_at)`), then
 * the lowest `id`.
 *
 * SQLite: the candidate is read and claimed synchronously inside one `BEGIN IMMEDIATE`
 * transaction on the store's connection, so two claimers (of this process or of another
 * on the file) never see the same candidate.
 *
 * PostgreSQL: one `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)`: a claimer
 * skips the candidate another claimer has locked (and, since that one is still pending in
 * its snapshot, the rest of that thread's queue too); the re-checked `status = 'pending'`
 * refuses a run claimed meanwhile, and the partial unique index on running runs refuses
 * any other race (read as "lost", retried).
 */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { RUNS_TABLE, RunEntity, type RunRow } from "./entities.js";
import { rawToRun, rowToRun, type RawRunRow } from "./records.js";
import { immediateTransaction, prepared, type SqliteDatabase } from "./sqlite-database.js";
import type { RunRecord } from "../../kernel/runs/types.js";

const isoAt = (ms: number): string => new Date(ms).toISOString();
/** The queue's time key: the due time, or for a run due at once its `createdAt`. */
const due = (alias: string) => `coalesce(${alias}.due_at, ${alias}.created_at)`;
/** Due by now (one parameter): a run due at once always is, whatever the clocks of other workers say. */
const isDue = (alias: string) => `(${alias}.due_at is null or ${alias}.due_at <= ?)`;

/** Due pending runs at the head of an idle thread's queue; parameters: now, now. */
const HEADS =
  `from ${RUNS_TABLE} r where r.status = 'pending' and ${isDue("r")} ` +
  `and not exists (select 1 from ${RUNS_TABLE} x where x.thread_id = r.thread_id and x.status = 'running') ` +
  `and not exists (select 1 from ${RUNS_TABLE} p where p.thread_id = r.thread_id and p.status = 'pending' and ${isDue("p")} and p.id < r.id)`;
const NEXT_DUE = `select r.id ${HEADS} order by ${due("r")} asc, r.id asc limit 1`;
/** Parameters: owner, lease until, now, id. */
const CLAIM_ID = `update ${RUNS_TABLE} set status = 'running', owner = ?, epoch = epoch + 1, lease_expires_at = ?, updated_at = ? where id = ? and status = 'pending' returning *`;
/** Parameters: owner, lease until, now, now, now. */
const CLAIM_DUE_POSTGRES =
  `update ${RUNS_TABLE} set status = 'running', owner = ?, epoch = epoch + 1, lease_expires_at = ?, updated_at = ? ` +
  `where id = (select r.id ${HEADS} order by ${due("r")} asc, r.id asc limit 1 for update of r skip locked) and status = 'pending' returning *`;
/** Parameters: owner, lease until, now, thread, now, thread. */
const CLAIM_THREAD =
  `update ${RUNS_TABLE} set status = 'running', owner = ?, epoch = epoch + 1, lease_expires_at = ?, updated_at = ? ` +
  `where id = (select r.id from ${RUNS_TABLE} r where r.thread_id = ? and r.status = 'pending' and ${isDue("r")} order by r.id asc limit 1) ` +
  `and status = 'pending' ` +
  `and not exists (select 1 from ${RUNS_TABLE} x where x.thread_id = ? and x.status = 'running') ` +
  `returning *`;

/** How often a PostgreSQL claim that lost a race to the unique index is tried again. */
const POSTGRES_ATTEMPTS = 3;

export function claimDueOnSqlite(db: SqliteDatabase, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
  const at = isoAt(now);
  return immediateTransaction(db, () => {
    const next = prepared(db, NEXT_DUE).get(at, at) as { id: number } | undefined;
    if (!next) return null;
    const claimed = prepared(db, CLAIM_ID).get(owner, isoAt(now + ttlMs), at, next.id) as RawRunRow | undefined;
    return claimed ? rawToRun(claimed) : null;
  });
}

export function claimThreadOnSqlite(db: SqliteDatabase, threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
  const at = isoAt(now);
  return immediateTransaction(db, () => {
    const claimed = prepared(db, CLAIM_THREAD).get(owner, isoAt(now + ttlMs), at, threadId, at, threadId) as RawRunRow | undefined;
    return claimed ? rawToRun(claimed) : null;
  });
}

export async function claimDueOnPostgres(em: () => SqlEntityManager, isUniqueViolation: (error: unknown) => boolean, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
  const at = isoAt(now);
  for (let attempt = 1; ; attempt++) {
    try {
      return await claimOne(em(), CLAIM_DUE_POSTGRES, [owner, isoAt(now + ttlMs), at, at, at]);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (attempt >= POSTGRES_ATTEMPTS) return null;
    }
  }
}

/** One statement; a unique violation means another run of the thread became running: null. */
export async function claimThreadOnPostgres(em: SqlEntityManager, isUniqueViolation: (error: unknown) => boolean, threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
  const at = isoAt(now);
  try {
    return await claimOne(em, CLAIM_THREAD, [owner, isoAt(now + ttlMs), at, threadId, at, threadId]);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

async function claimOne(em: SqlEntityManager, sql: string, params: unknown[]): Promise<RunRecord | null> {
  const rows = await em.execute<Record<string, unknown>[]>(sql, params, "all");
  return rows.length === 1 ? rowToRun(em.map(RunEntity, rows[0]!) as RunRow) : null;
}
