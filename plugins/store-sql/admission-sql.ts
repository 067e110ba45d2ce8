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
 */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { KeelError } from "../../kernel/errors.js";
import { replacesActive, runLimitError, threadDeletedError } from "../../kernel/runs/admission.js";
import type { AdmissionLimits, AdmissionResult, RunRecord } from "../../kernel/runs/types.js";
import { RUNS_TABLE, THREADS_TABLE, type RunRow } from "./entities.js";
import { admittedRunRow, rowToRun } from "./records.js";
import { immediateTransaction, prepared, type SqliteDatabase } from "./sqlite-database.js";

const THREAD_EXISTS = `select thread_id, status from ${THREADS_TABLE} where thread_id = ?`;
/** The thread status of a thread marked deleted (`markThreadDeleted`): the tombstone admission refuses. */
export const DELETED_THREAD_STATUS = "deleted";
const ACTIVE_RUNS = `select * from ${RUNS_TABLE} where thread_id = ? and status in ('pending', 'running') order by created_at asc, id asc`;
const USER_ACTIVE = `select count(*) as n from ${RUNS_TABLE} where user_id = ? and status in ('pending', 'running')`;
const USER_ACTIVE_ELSEWHERE = `${USER_ACTIVE} and thread_id <> ?`;
const INSERT_RUN =
  `insert into ${RUNS_TABLE} (run_id, thread_id, assistant_id, status, outcome, multitask_strategy, owner, epoch, lease_expires_at, created_at, updated_at, user_id, request) ` +
  "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/** A `keel_runs` row as the drivers return it (column names). */
interface RawRunRow {
  id: number;
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  outcome: string | null;
  multitask_strategy: string;
  owner: string | null;
  epoch: number | string;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  user_id: string;
  request: string;
}

function rawToRun(raw: RawRunRow): RunRecord {
  return rowToRun({
    id: Number(raw.id), runId: raw.run_id, threadId: raw.thread_id, assistantId: raw.assistant_id, status: raw.status, outcome: raw.outcome,
    multitaskStrategy: raw.multitask_strategy, owner: raw.owner, epoch: Number(raw.epoch), leaseExpiresAt: raw.lease_expires_at,
    createdAt: raw.created_at, updatedAt: raw.updated_at, userId: raw.user_id, request: raw.request,
  });
}

const insertParams = (row: RunRow): unknown[] => [
  row.runId, row.threadId, row.assistantId, row.status, row.outcome ?? null, row.multitaskStrategy, row.owner ?? null, row.epoch, row.leaseExpiresAt ?? null,
  row.createdAt, row.updatedAt, row.userId, row.request,
];

const threadNotFound = (threadId: string) => new KeelError("KEEL_ERR_STORE_THREAD_NOT_FOUND", `thread \`${threadId}\` does not exist`);
const userParams = (run: RunRecord): unknown[] => (replacesActive(run) ? [run.user, run.threadId] : [run.user]);
const userSql = (run: RunRecord): string => (replacesActive(run) ? USER_ACTIVE_ELSEWHERE : USER_ACTIVE);

/** What both dialects decide once they hold their locks and have read the thread's active runs. */
function refusal(run: RunRecord, active: RunRecord[]): AdmissionResult | null {
  if (run.multitaskStrategy === "reject" && active.length > 0) return { ok: false, active: active.find((r) => r.status === "running") ?? active[0]! };
  return null;
}

export function admitOnSqlite(db: SqliteDatabase, run: RunRecord, limits: AdmissionLimits): Promise<AdmissionResult> {
  return immediateTransaction(db, () => {
    const thread = prepared(db, THREAD_EXISTS).get(run.threadId) as { status: string } | undefined;
    if (thread === undefined) throw threadNotFound(run.threadId);
    if (thread.status === DELETED_THREAD_STATUS) throw threadDeletedError(run.threadId);
    const active = (prepared(db, ACTIVE_RUNS).all(run.threadId) as RawRunRow[]).map(rawToRun);
    const refused = refusal(run, active);
    if (refused) return refused;
    if (limits.maxActivePerUser !== undefined) {
      const counted = Number((prepared(db, userSql(run)).get(...userParams(run)) as { n: number }).n);
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    const row = admittedRunRow(run);
    prepared(db, INSERT_RUN).run(...insertParams(row));
    return { ok: true, run: rowToRun(row), active };
  });
}

export function admitOnPostgres(em: SqlEntityManager, run: RunRecord, limits: AdmissionLimits): Promise<AdmissionResult> {
  return em.transactional(async (tx) => {
    const locked = await tx.execute<Array<{ status: string }>>(`${THREAD_EXISTS} for update`, [run.threadId], "all");
    if (locked.length !== 1) throw threadNotFound(run.threadId);
    if (locked[0]!.status === DELETED_THREAD_STATUS) throw threadDeletedError(run.threadId);
    const active = (await tx.execute<RawRunRow[]>(ACTIVE_RUNS, [run.threadId], "all")).map(rawToRun);
    const refused = refusal(run, active);
    if (refused) return refused;
    if (limits.maxActivePerUser !== undefined) {
      await tx.execute("select pg_advisory_xact_lock(hashtext(?))", [`keel-user:${run.user}`], "all");
      const [{ n }] = await tx.execute<[{ n: string | number }]>(userSql(run), userParams(run), "all");
      const counted = Number(n);
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    const row = admittedRunRow(run);
    await tx.execute(INSERT_RUN, insertParams(row), "run");
    return { ok: true, run: rowToRun(row), active };
  });
}
