/**
 * The CronStore on SQLite or PostgreSQL (the `keel_crons` table, cron-entity.ts), on its own
 * MikroORM connection to the run store's database: the table is part of the store's schema
 * (`STORE_ENTITIES`), created or migrated by whichever opens first. The tick's claim
 * (`advanceCron`) is one conditional UPDATE — `next_run_at ← next where cron_id = ? and
 * next_run_at = <due> and enabled = 1` — judged by its row count: on PostgreSQL a second
 * updater of the row waits for the first to commit and then finds the WHERE false; on
 * SQLite the statement holds the file's write lock. So among workers sharing the database
 * exactly one claims each tick.
 */
import { KeelError } from "../../kernel/errors.js";
import type { CronFilter, CronPatch, CronRecord, CronSearch, CronSortField, CronStore } from "../../kernel/runs/cron-types.js";
import type { MultitaskStrategy, RunRequest } from "../../kernel/runs/types.js";
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { CRONS_TABLE, CronEntity, type CronRow } from "./cron-entity.js";
import { metadataEquals, type Dialect } from "./dialect-sql.js";
import { initOrClose, type StoreOrm } from "./open-orm.js";
import { SharedDatabase } from "./shared-database.js";
import { retryMethodsWhileBusy } from "./sqlite-busy.js";
import { reportUnreachable } from "./store-unavailable.js";
import { parseStoreUrl, type StoreTarget } from "./store-url.js";

const CRON_METHODS = ["createCron", "getCron", "updateCron", "deleteCron", "searchCrons", "countCrons", "dueCrons", "advanceCron"] as const satisfies readonly (keyof SqlCronStore)[];

/** Sortable columns (a whitelist: the only names interpolated into SQL). */
const SORT_COLUMNS: Record<CronSortField, string> = {
  cronId: "cron_id",
  assistantId: "assistant_id",
  threadId: "thread_id",
  createdAt: "created_at",
  updatedAt: "updated_at",
  nextRunAt: "next_run_at",
  endTime: "end_time",
};

export class SqlCronStore implements CronStore {
  private readonly orm: StoreOrm;
  private readonly dialect: Dialect;
  private released: Promise<void> | undefined;

  private constructor(private readonly db: SharedDatabase) {
    db.acquire();
    this.orm = db.orm;
    this.dialect = db.dialect;
    if (db.dialect === "sqlite") retryMethodsWhileBusy(this as SqlCronStore, CRON_METHODS);
    else reportUnreachable(this as SqlCronStore, CRON_METHODS);
  }

  /**
   * Connects and creates or migrates the schema. Given a `SharedDatabase` (the run store's,
   * `SqlRunStore.database()`), uses that connection: no pool of its own, the schema diff
   * shared (run once).
   */
  static async open(target: StoreTarget | string | SharedDatabase): Promise<SqlCronStore> {
    const db = target instanceof SharedDatabase ? target : await SharedDatabase.open(typeof target === "string" ? parseStoreUrl(target) : target);
    return initOrClose(new SqlCronStore(db));
  }

  init(): Promise<void> {
    return this.db.migrate();
  }

  /** Releases the connection (closed with its last holder). Idempotent. */
  close(): Promise<void> {
    this.released ??= this.db.release();
    return this.released;
  }

  async createCron(cron: CronRecord): Promise<CronRecord> {
    try {
      await this.em().insert(CronEntity, cronToRow(cron));
    } catch (error) {
      if (this.isUniqueViolation(error)) throw new KeelError("KEEL_ERR_STORE_CONFLICT", `cron \`${cron.cronId}\` already exists`, { cause: error });
      throw error;
    }
    return rowToCron(cronToRow(cron));
  }

  async getCron(cronId: string): Promise<CronRecord | null> {
    const row = await this.em().findOne(CronEntity, { cronId });
    return row ? rowToCron(row) : null;
  }

  async updateCron(cronId: string, patch: CronPatch, now: string): Promise<CronRecord | null> {
    const data: Partial<CronRow> = { ...patchToRow(patch), updatedAt: now };
    const updated = await this.em().nativeUpdate(CronEntity, { cronId }, data);
    return updated === 1 ? this.getCron(cronId) : null;
  }

  async deleteCron(cronId: string): Promise<boolean> {
    return (await this.em().nativeDelete(CronEntity, { cronId })) === 1;
  }

  async searchCrons(search: CronSearch): Promise<CronRecord[]> {
    const where = this.where(search);
    const order = search.sortOrder === "asc" ? "asc" : "desc";
    // Nulls (a stateless cron's thread, no end, no next tick) sort as the empty string, the same on both dialects.
    const sql = `select * from ${CRONS_TABLE} c where ${where.sql} order by coalesce(c.${SORT_COLUMNS[search.sortBy]}, '') ${order}, c.cron_id ${order} limit ? offset ?`;
    const rows = await this.em().execute<Record<string, unknown>[]>(sql, [...where.params, search.limit, search.offset]);
    return rows.map(rawToCron);
  }

  async countCrons(filter: CronFilter): Promise<number> {
    const where = this.where(filter);
    const rows = await this.em().execute<Array<{ n: number | string }>>(`select count(*) as n from ${CRONS_TABLE} c where ${where.sql}`, where.params);
    return Number(rows[0]?.n ?? 0);
  }

  async dueCrons(now: string, limit: number): Promise<CronRecord[]> {
    const rows = await this.em().find(CronEntity, { enabled: 1, nextRunAt: { $ne: null, $lte: now } }, { orderBy: { nextRunAt: "asc", cronId: "asc" }, limit });
    return rows.map(rowToCron);
  }

  async advanceCron(cronId: string, due: string, next: string | null, now: string): Promise<boolean> {
    if (typeof due !== "string") return false;
    const updated = await this.em().nativeUpdate(CronEntity, { cronId, nextRunAt: due, enabled: 1 }, { nextRunAt: next, updatedAt: now });
    return updated === 1;
  }

  private where(filter: CronFilter): { sql: string; params: unknown[] } {
    const clauses = ["c.owner = ?"];
    const params: unknown[] = [filter.owner];
    if (filter.assistantId !== undefined) (clauses.push("c.assistant_id = ?"), params.push(filter.assistantId));
    if (filter.threadId !== undefined) (clauses.push("c.thread_id = ?"), params.push(filter.threadId));
    if (filter.enabled !== undefined) (clauses.push("c.enabled = ?"), params.push(filter.enabled ? 1 : 0));
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (value === undefined) continue;
      const condition = metadataEquals(this.dialect, "c", key, value);
      clauses.push(condition.sql);
      params.push(...condition.params);
    }
    return { sql: clauses.join(" and "), params };
  }

  private em(): SqlEntityManager {
    return this.orm.em.fork();
  }

  private isUniqueViolation(error: unknown): boolean {
    if (error instanceof UniqueConstraintViolationException) return true;
    return error instanceof Error && this.orm.em.getDriver().convertException(error) instanceof UniqueConstraintViolationException;
  }
}

function cronToRow(cron: CronRecord): CronRow {
  return {
    cronId: cron.cronId,
    owner: cron.owner,
    assistantId: cron.assistantId,
    threadId: cron.threadId,
    schedule: cron.schedule,
    timezone: cron.timezone,
    endTime: cron.endTime,
    enabled: cron.enabled ? 1 : 0,
    onRunCompleted: cron.onRunCompleted,
    payload: JSON.stringify(cron.payload),
    request: JSON.stringify(cron.request),
    strategy: cron.strategy,
    metadata: JSON.stringify(cron.metadata),
    nextRunAt: cron.nextRunAt,
    createdAt: cron.createdAt,
    updatedAt: cron.updatedAt,
  };
}

function patchToRow(patch: CronPatch): Partial<CronRow> {
  const row: Partial<CronRow> = {};
  if (patch.schedule !== undefined) row.schedule = patch.schedule;
  if (patch.timezone !== undefined) row.timezone = patch.timezone;
  if (patch.endTime !== undefined) row.endTime = patch.endTime;
  if (patch.enabled !== undefined) row.enabled = patch.enabled ? 1 : 0;
  if (patch.onRunCompleted !== undefined) row.onRunCompleted = patch.onRunCompleted;
  if (patch.payload !== undefined) row.payload = JSON.stringify(patch.payload);
  if (patch.request !== undefined) row.request = JSON.stringify(patch.request);
  if (patch.strategy !== undefined) row.strategy = patch.strategy;
  if (patch.metadata !== undefined) row.metadata = JSON.stringify(patch.metadata);
  if (patch.nextRunAt !== undefined) row.nextRunAt = patch.nextRunAt;
  return row;
}

function rowToCron(row: CronRow): CronRecord {
  return {
    cronId: row.cronId,
    owner: row.owner,
    assistantId: row.assistantId,
    threadId: row.threadId ?? null,
    schedule: row.schedule,
    timezone: row.timezone ?? null,
    endTime: row.endTime ?? null,
    enabled: Number(row.enabled) === 1,
    onRunCompleted: (row.onRunCompleted ?? null) as CronRecord["onRunCompleted"],
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    request: JSON.parse(row.request) as RunRequest,
    strategy: row.strategy as MultitaskStrategy,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    nextRunAt: row.nextRunAt ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A raw `select *` row (snake_case columns). */
function rawToCron(raw: Record<string, unknown>): CronRecord {
  const text = (name: string) => raw[name] as string;
  const nullable = (name: string) => (raw[name] ?? null) as string | null;
  return rowToCron({
    cronId: text("cron_id"),
    owner: text("owner"),
    assistantId: text("assistant_id"),
    threadId: nullable("thread_id"),
    schedule: text("schedule"),
    timezone: nullable("timezone"),
    endTime: nullable("end_time"),
    enabled: Number(raw.enabled),
    onRunCompleted: nullable("on_run_completed"),
    payload: text("payload"),
    request: text("request"),
    strategy: text("strategy"),
    metadata: text("metadata"),
    nextRunAt: nullable("next_run_at"),
    createdAt: text("created_at"),
    updatedAt: text("updated_at"),
  });
}
