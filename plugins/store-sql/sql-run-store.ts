/**
 * The RunStore on SQLite or PostgreSQL through MikroORM. Every operation runs on a fresh
 * EntityManager fork (no identity map shared between calls); writes that must be atomic
 * are either one conditional statement (claim, heartbeat, terminal writes: compare and
 * swap, judged by the affected row count) or one transaction (admission, deletion).
 */
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/sqlite";
import { RUN_STATUS_OF_OUTCOME } from "../../contracts/run/v1.js";
import { KeelError } from "../../kernel/errors.js";
import type { StatusV2Payload } from "../../kernel/loop/status.js";
import { replacesActive, runLimitError } from "../../kernel/runs/admission.js";
import type { AdmissionLimits, AdmissionResult, JournalEntry, RunRecord, RunRecordStatus, RunStore, ThreadRecord, ThreadStatus } from "../../kernel/runs/types.js";
import { JOURNAL_TABLE, JournalEntity, REPORTS_TABLE, ReportEntity, RUNS_TABLE, RunEntity, ThreadEntity, type RunRow } from "./entities.js";
import { lockThreadForAdmission, lockUserForAdmission, metadataEquals, type Dialect } from "./dialect-sql.js";
import { migrateSchema } from "./migrate-schema.js";
import { openOrm, type StoreOrm } from "./open-orm.js";
import { admittedRunRow, rowToRun, rowToThread, threadToRow } from "./records.js";
import type { StoreTarget } from "./store-url.js";

const isoAt = (ms: number): string => new Date(ms).toISOString();
// Functions, not shared constants: MikroORM may normalize the objects it is given.
const oldestFirst = () => ({ createdAt: "asc", id: "asc" }) as const;
const newestFirst = () => ({ createdAt: "desc", id: "desc" }) as const;
const activeStatuses = () => ({ $in: ["pending", "running"] });

export class SqlRunStore implements RunStore {
  private migrated: Promise<void> | undefined;

  private constructor(
    private readonly orm: StoreOrm,
    private readonly dialect: Dialect,
  ) {}

  /** Connects; the schema is created or migrated by `init()`. */
  static async open(target: StoreTarget): Promise<SqlRunStore> {
    return new SqlRunStore(await openOrm(target), target.dialect);
  }

  /** Idempotent: the schema is migrated once per instance. */
  init(): Promise<void> {
    this.migrated ??= migrateSchema(this.orm, this.dialect);
    return this.migrated;
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }

  async createThread(thread: ThreadRecord): Promise<ThreadRecord> {
    try {
      await this.em().insert(ThreadEntity, threadToRow(thread));
    } catch (error) {
      throw this.conflictOr(error, `thread \`${thread.threadId}\` already exists`);
    }
    return rowToThread(threadToRow(thread));
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const row = await this.em().findOne(ThreadEntity, { threadId });
    return row ? rowToThread(row) : null;
  }

  async updateThread(threadId: string, patch: Partial<Pick<ThreadRecord, "status" | "metadata">>, now: string): Promise<void> {
    const data: { updatedAt: string; status?: string; metadata?: string } = { updatedAt: now };
    if (patch.status !== undefined) data.status = patch.status;
    if (patch.metadata !== undefined) data.metadata = JSON.stringify(patch.metadata);
    await this.em().nativeUpdate(ThreadEntity, { threadId }, data);
  }

  async searchThreads(filter: { owner: string; metadata?: Record<string, unknown>; status?: ThreadStatus; limit: number; offset: number }): Promise<ThreadRecord[]> {
    const qb = this.em().createQueryBuilder(ThreadEntity, "t").select("*").where({ owner: filter.owner });
    if (filter.status !== undefined) qb.andWhere({ status: filter.status });
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (value === undefined) continue;
      const condition = metadataEquals(this.dialect, "t", key, value);
      qb.andWhere(condition.sql, condition.params);
    }
    qb.orderBy([{ createdAt: "desc" }, { threadId: "desc" }]).limit(filter.limit).offset(filter.offset);
    return (await qb.getResultList()).map(rowToThread);
  }

  async deleteThread(threadId: string): Promise<boolean> {
    return this.em().transactional(async (em) => {
      // The first statement writes, so SQLite takes its write lock before anything is read.
      const deleted = await em.nativeDelete(ThreadEntity, { threadId });
      const runsOfThread = `select run_id from ${RUNS_TABLE} where thread_id = ?`;
      await em.execute(`delete from ${JOURNAL_TABLE} where run_id in (${runsOfThread})`, [threadId], "run");
      await em.execute(`delete from ${REPORTS_TABLE} where run_id in (${runsOfThread})`, [threadId], "run");
      await em.nativeDelete(RunEntity, { threadId });
      return deleted === 1;
    });
  }

  async admitRun(run: RunRecord, limits: AdmissionLimits = {}): Promise<AdmissionResult> {
    try {
      return await this.em().transactional(async (em) => {
        if (!(await lockThreadForAdmission(em, this.dialect, run.threadId))) {
          throw new KeelError("KEEL_ERR_STORE_THREAD_NOT_FOUND", `thread \`${run.threadId}\` does not exist`);
        }
        const active = (await em.find(RunEntity, { threadId: run.threadId, status: activeStatuses() }, { orderBy: oldestFirst() })).map(rowToRun);
        if (run.multitaskStrategy === "reject" && active.length > 0) {
          return { ok: false, active: active.find((r) => r.status === "running") ?? active[0]! };
        }
        if (limits.maxActivePerUser !== undefined) {
          await lockUserForAdmission(em, this.dialect, run.user);
          const where = { userId: run.user, status: activeStatuses(), ...(replacesActive(run) ? { threadId: { $ne: run.threadId } } : {}) };
          const counted = await em.count(RunEntity, where);
          if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
        }
        const row = admittedRunRow(run);
        await em.insert(RunEntity, row);
        return { ok: true, run: rowToRun(row), active };
      });
    } catch (error) {
      throw this.conflictOr(error, `run \`${run.runId}\` already exists`);
    }
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = await this.em().findOne(RunEntity, { runId });
    return row ? rowToRun(row) : null;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunRecordStatus }): Promise<RunRecord[]> {
    const where = options.status === undefined ? { threadId } : { threadId, status: options.status };
    const rows = await this.em().find(RunEntity, where, { orderBy: newestFirst(), limit: options.limit, offset: options.offset });
    return rows.map(rowToRun);
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return (await this.em().find(RunEntity, { threadId, status: activeStatuses() }, { orderBy: oldestFirst() })).map(rowToRun);
  }

  /**
   * One statement, so it is atomic on both dialects. On PostgreSQL two workers racing
   * for the same pending run serialize on its row lock and the loser's re-checked
   * `status = 'pending'` fails; any other race (a different run of the thread made
   * running meanwhile) hits the partial unique index, which is read as "already running".
   */
  async claimNext(threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    const sql =
      `update ${RUNS_TABLE} set status = 'running', owner = ?, epoch = epoch + 1, lease_expires_at = ?, updated_at = ? ` +
      `where id = (select id from ${RUNS_TABLE} where thread_id = ? and status = 'pending' order by created_at asc, id asc limit 1) ` +
      `and status = 'pending' ` +
      `and not exists (select 1 from ${RUNS_TABLE} where thread_id = ? and status = 'running') ` +
      `returning *`;
    const em = this.em();
    try {
      const rows = await em.execute<Record<string, unknown>[]>(sql, [owner, isoAt(now + ttlMs), isoAt(now), threadId, threadId], "all");
      return rows.length === 1 ? rowToRun(em.map(RunEntity, rows[0]!) as RunRow) : null;
    } catch (error) {
      if (this.isUniqueViolation(error)) return null;
      throw error;
    }
  }

  async heartbeat(runId: string, owner: string, epoch: number, ttlMs: number, now: number): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, owner, epoch, status: "running" },
      { leaseExpiresAt: isoAt(now + ttlMs), updatedAt: isoAt(now) },
    );
    return updated === 1;
  }

  async completeRun(runId: string, owner: string, epoch: number, update: { status: RunRecordStatus; outcome: StatusV2Payload }, now: string): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, owner, epoch, status: "running" },
      terminalWrite(update.status, update.outcome, now),
    );
    return updated === 1;
  }

  async cancelPending(runId: string, outcome: StatusV2Payload, now: string): Promise<boolean> {
    const updated = await this.em().nativeUpdate(RunEntity, { runId, status: "pending" }, terminalWrite("interrupted", outcome, now));
    return updated === 1;
  }

  async countRuns(status: "pending" | "running"): Promise<number> {
    return this.em().count(RunEntity, { status });
  }

  async expiredRuns(now: number): Promise<RunRecord[]> {
    const rows = await this.em().find(RunEntity, { status: "running", leaseExpiresAt: { $lt: isoAt(now) } }, { orderBy: oldestFirst() });
    return rows.map(rowToRun);
  }

  async expireRun(runId: string, epoch: number, outcome: StatusV2Payload, now: number): Promise<boolean> {
    const updated = await this.em().nativeUpdate(
      RunEntity,
      { runId, epoch, status: "running", leaseExpiresAt: { $lt: isoAt(now) } },
      terminalWrite(RUN_STATUS_OF_OUTCOME[outcome.status], outcome, isoAt(now)),
    );
    return updated === 1;
  }

  async appendJournal(runId: string, entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One multi-row INSERT: a batch is stored whole or not at all.
    await this.em().insertMany(
      JournalEntity,
      entries.map((entry) => ({ runId, seq: entry.seq, entry: JSON.stringify(entry) })),
    );
  }

  async readJournal(runId: string): Promise<JournalEntry[]> {
    const rows = await this.em().find(JournalEntity, { runId }, { orderBy: { id: "asc" } });
    return rows.map((row) => JSON.parse(row.entry) as JournalEntry);
  }

  async saveReport(runId: string, report: unknown): Promise<void> {
    await this.em().upsert(ReportEntity, { runId, report: JSON.stringify(report) });
  }

  async getReport(runId: string): Promise<unknown | null> {
    const row = await this.em().findOne(ReportEntity, { runId });
    return row ? (JSON.parse(row.report) as unknown) : null;
  }

  private em(): SqlEntityManager {
    return this.orm.em.fork();
  }

  private isUniqueViolation(error: unknown): boolean {
    return error instanceof Error && this.orm.em.getDriver().convertException(error) instanceof UniqueConstraintViolationException;
  }

  /** A unique violation on create means the id is taken; anything else passes through. */
  private conflictOr(error: unknown, message: string): unknown {
    return this.isUniqueViolation(error) ? new KeelError("KEEL_ERR_STORE_CONFLICT", message, { cause: error }) : error;
  }
}

/** The lease ends with the run: `lease_expires_at` is cleared; owner and epoch stay, for the record. */
function terminalWrite(status: RunRecordStatus, outcome: StatusV2Payload, now: string): Partial<RunRow> {
  return { status, outcome: JSON.stringify(outcome), leaseExpiresAt: null, updatedAt: now };
}
