/**
 * The admission transaction as raw SQL, on both dialects: the thread's lock and
 * existence, its active runs, the per-user limit, the insert. The statements are the
 * same; what differs is the lock and how they run.
 *
 * SQLite: synchronously on the store's better-sqlite3 connection, inside one
 * `BEGIN IMMEDIATE` transaction: the database's single write lock is held from the first
 * read, so two admissions (of this process or of another on the same file) never both
 * read "no active run"; it covers the per-user count as well.
 *
 * PostgreSQL: on the store's pool, inside one MikroORM transaction. `SELECT … FOR UPDATE`
 * locks the thread row until commit, so admissions on one thread run one after the
 * other and admissions on other threads do not wait; the per-user count is serialized
 * by a transaction-scoped advisory lock on the user's name, so only admissions of the
 * same user under a limit wait for each other. Nothing takes a lock shared by all.
 *
 * Interrupt/rollback with `AdmissionReplace`: the thread's pending runs are written
 * `interrupted` by one UPDATE in the same transaction (superseded), so each admission of
 * an interrupt storm leaves at most one run to cancel — the running one — instead of
 * cancelling the whole queue again, one statement per run, after its commit.
 */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { KeelError } from "../../kernel/errors.js";
import { replacesActive, runLimitError, startedAtAdmission, supersedesPending, threadDeletedError, uncheckedRollback } from "../../kernel/runs/admission.js";
import type { AdmissionLimits, AdmissionReplace, AdmissionResult, AdmissionStart, RunRecord } from "../../kernel/runs/types.js";
import { RUNS_TABLE, THREADS_TABLE, type RunRow } from "./entities.js";
import { admittedRunRow, rawToRun, rowToRun, type RawRunRow } from "./records.js";
import { immediateTransaction, prepared, type SqliteDatabase } from "./sqlite-database.js";

const THREAD_EXISTS = `select thread_id, status from ${THREADS_TABLE} where thread_id = ?`;
/** The thread status of a thread marked deleted (`markThreadDeleted`): the tombstone admission refuses. */
export const DELETED_THREAD_STATUS = "deleted";
const ACTIVE_RUNS = `select * from ${RUNS_TABLE} where thread_id = ? and status in ('pending', 'running') order by id asc`;
/**
 * What counts toward the per-user limit: running runs, pending runs that were due at
 * once, and scheduled ones whose due time came by the admission's time (the new run's
 * `createdAt`; a clock the immediate runs do not depend on).
 */
const USER_ACTIVE =
  `select count(*) as n from ${RUNS_TABLE} where user_id = ? ` +
  `and (status = 'running' or (status = 'pending' and (due_at is null or due_at <= created_at or due_at <= ?)))`;
const USER_ACTIVE_ELSEWHERE = `${USER_ACTIVE} and thread_id <> ?`;
/** The row's `id` (autoincrement, taken inside this transaction) is the run's admission sequence. */
const INSERT_RUN =
  `insert into ${RUNS_TABLE} (run_id, thread_id, assistant_id, status, outcome, multitask_strategy, owner, epoch, lease_expires_at, created_at, updated_at, due_at, user_id, request) ` +
  "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * Interrupt/rollback (`AdmissionReplace`): the thread's pending runs, superseded by the new
 * one in its admission transaction. Parameters: outcome, now, thread.
 */
const SUPERSEDE_PENDING =
  `update ${RUNS_TABLE} set status = 'interrupted', outcome = ?, lease_expires_at = null, updated_at = ? ` +
  "where thread_id = ? and status = 'pending' returning *";

const insertParams = (row: RunRow): unknown[] => [
  row.runId, row.threadId, row.assistantId, row.status, row.outcome ?? null, row.multitaskStrategy, row.owner ?? null, row.epoch, row.leaseExpiresAt ?? null,
  row.createdAt, row.updatedAt, row.dueAt ?? null, row.userId, row.request,
];

const threadNotFound = (threadId: string) => new KeelError("KEEL_ERR_STORE_THREAD_NOT_FOUND", `thread \`${threadId}\` does not exist`);
const userParams = (run: RunRecord): unknown[] => (replacesActive(run) ? [run.user, run.createdAt, run.threadId] : [run.user, run.createdAt]);
/** A run scheduled for later is not limited at admission (it counts once due). */
const limited = (run: RunRecord, limits: AdmissionLimits): limits is { maxActivePerUser: number } =>
  limits.maxActivePerUser !== undefined && (run.dueAt ?? run.createdAt) <= run.createdAt;
const userSql = (run: RunRecord): string => (replacesActive(run) ? USER_ACTIVE_ELSEWHERE : USER_ACTIVE);

/** What both dialects decide once they hold their locks and have read the thread's active runs. */
function refusal(run: RunRecord, active: RunRecord[], replace: AdmissionReplace | undefined): AdmissionResult | null {
  if (run.multitaskStrategy === "reject" && active.length > 0) return { ok: false, active: active.find((r) => r.status === "running") ?? active[0]! };
  const unchecked = uncheckedRollback(run, active, replace);
  return unchecked ? { ok: false, active: unchecked } : null;
}

const supersedeParams = (run: RunRecord, replace: AdmissionReplace): unknown[] => [JSON.stringify(replace.outcome), replace.now, run.threadId];
const stillRunning = (active: RunRecord[]) => active.filter((r) => r.status === "running");

export function admitOnSqlite(db: SqliteDatabase, run: RunRecord, limits: AdmissionLimits, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult> {
  return immediateTransaction(db, () => {
    const thread = prepared(db, THREAD_EXISTS).get(run.threadId) as { status: string } | undefined;
    if (thread === undefined) throw threadNotFound(run.threadId);
    if (thread.status === DELETED_THREAD_STATUS) throw threadDeletedError(run.threadId);
    let active = (prepared(db, ACTIVE_RUNS).all(run.threadId) as RawRunRow[]).map(rawToRun);
    const refused = refusal(run, active, replace);
    if (refused) return refused;
    if (limited(run, limits)) {
      const counted = Number((prepared(db, userSql(run)).get(...userParams(run)) as { n: number }).n);
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    let superseded: RunRecord[] | undefined;
    if (supersedesPending(run, replace)) {
      superseded = (prepared(db, SUPERSEDE_PENDING).all(...supersedeParams(run, replace)) as RawRunRow[]).map(rawToRun);
      active = stillRunning(active);
    }
    const row = admittedRunRow(run, startedAtAdmission(run, active, start));
    row.id = Number(prepared(db, INSERT_RUN).run(...insertParams(row)).lastInsertRowid);
    return { ok: true, run: rowToRun(row), active, ...(superseded ? { superseded } : {}) };
  });
}

export async function admitOnPostgres(em: SqlEntityManager, run: RunRecord, limits: AdmissionLimits, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult> {
  try {
    return await admitInPostgresTransaction(em, run, limits, start, replace);
  } catch (error) {
    if (error instanceof RolledBackRefusal) return error.result;
    throw error;
  }
}

/** A refusal found after the transaction wrote something: thrown to roll it back, answered as the refusal. */
class RolledBackRefusal extends Error {
  constructor(readonly result: AdmissionResult) {
    super("admission refused after a write; rolled back");
  }
}

function admitInPostgresTransaction(em: SqlEntityManager, run: RunRecord, limits: AdmissionLimits, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult> {
  return em.transactional(async (tx) => {
    const locked = await tx.execute<Array<{ status: string }>>(`${THREAD_EXISTS} for update`, [run.threadId], "all");
    if (locked.length !== 1) throw threadNotFound(run.threadId);
    if (locked[0]!.status === DELETED_THREAD_STATUS) throw threadDeletedError(run.threadId);
    let active = (await tx.execute<RawRunRow[]>(ACTIVE_RUNS, [run.threadId], "all")).map(rawToRun);
    const refused = refusal(run, active, replace);
    if (refused) return refused;
    if (limited(run, limits)) {
      await tx.execute("select pg_advisory_xact_lock(hashtext(?))", [`keel-user:${run.user}`], "all");
      const [{ n }] = await tx.execute<[{ n: string | number }]>(userSql(run), userParams(run), "all");
      const counted = Number(n);
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    let superseded: RunRecord[] | undefined;
    if (supersedesPending(run, replace)) {
      superseded = (await tx.execute<RawRunRow[]>(SUPERSEDE_PENDING, supersedeParams(run, replace), "all")).map(rawToRun);
      // A claim takes a run without the thread's lock: a pending run read above may have been
      // claimed before the UPDATE reached it. It is running now: still to cancel, never a reason
      // to start this run at admission, and under rollback a run not checked yet.
      const ids = new Set(superseded.map((r) => r.runId));
      const claimed = active.filter((r) => r.status === "pending" && !ids.has(r.runId)).map((r) => ({ ...r, status: "running" as const }));
      if (claimed.length > 0 && run.multitaskStrategy === "rollback") throw new RolledBackRefusal({ ok: false, active: claimed[0]! });
      active = [...stillRunning(active), ...claimed];
    }
    // The thread row is locked and has no active run: no claim or other admission can make one running meanwhile.
    const row = admittedRunRow(run, startedAtAdmission(run, active, start));
    const [inserted] = await tx.execute<[{ id: number | string }]>(`${INSERT_RUN} returning id`, insertParams(row), "all");
    row.id = Number(inserted.id);
    return { ok: true, run: rowToRun(row), active, ...(superseded ? { superseded } : {}) };
  });
}
