/**
 * A fenced journal write (`appendJournal(runId, entries, fence)`) as one transaction on
 * both dialects: read the run's lease row, check it holds the fence (owner, epoch,
 * running, unexpired at the writer's clock: kernel/runs/journal-fence.ts), then insert
 * the batch. SQLite: synchronously inside `BEGIN IMMEDIATE` on the store's connection
 * (the write lock is held from the read, so no claim lands in between). PostgreSQL: the
 * run row is read `FOR UPDATE`, so a concurrent claim or reap waits for the commit.
 */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { assertJournalFence, type LeaseRowView } from "../../kernel/runs/journal-fence.js";
import type { JournalEntry, JournalFence } from "../../kernel/runs/types.js";
import { JOURNAL_TABLE, RUNS_TABLE } from "./entities.js";
import { immediateTransaction, prepared, type SqliteDatabase } from "./sqlite-database.js";

const LEASE_ROW = `select status, owner, epoch, lease_expires_at from ${RUNS_TABLE} where run_id = ?`;
const INSERT_ENTRY = `insert into ${JOURNAL_TABLE} (run_id, seq, entry) values (?, ?, ?)`;

interface RawLease {
  status: string;
  owner: string | null;
  epoch: number | string;
  lease_expires_at: string | null;
}

const view = (raw: RawLease | undefined): LeaseRowView | undefined =>
  raw === undefined ? undefined : { status: raw.status, owner: raw.owner, epoch: Number(raw.epoch), leaseExpiresAt: raw.lease_expires_at };

export function appendFencedOnSqlite(db: SqliteDatabase, runId: string, entries: readonly JournalEntry[], fence: JournalFence): Promise<void> {
  return immediateTransaction(db, () => {
    assertJournalFence(runId, view(prepared(db, LEASE_ROW).get(runId) as RawLease | undefined), fence, entries.length);
    const insert = prepared(db, INSERT_ENTRY);
    for (const entry of entries) insert.run(runId, entry.seq, JSON.stringify(entry));
  });
}

export function appendFencedOnPostgres(em: SqlEntityManager, runId: string, entries: readonly JournalEntry[], fence: JournalFence): Promise<void> {
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<RawLease[]>(`${LEASE_ROW} for update`, [runId], "all");
    assertJournalFence(runId, view(row), fence, entries.length);
    const values = entries.map(() => "(?, ?, ?)").join(", ");
    await tx.execute(`insert into ${JOURNAL_TABLE} (run_id, seq, entry) values ${values}`, entries.flatMap((e) => [runId, e.seq, JSON.stringify(e)]), "run");
  });
}
