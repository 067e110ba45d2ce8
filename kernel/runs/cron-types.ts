/**
 * Crons (kernel/runs/README.md, "Crons"): a schedule that admits an ordinary run on each
 * tick, on its own thread (a thread cron) or on a new thread per fire (a stateless cron).
 * The `CronStore` port keeps them; `MemoryCronStore` (cron-memory-store.ts) and store-sql's
 * `SqlCronStore` implement it, and `CronScheduler` (cron-scheduler.ts) fires them.
 */
import type { MultitaskStrategy, RunRequest } from "./types.js";

export interface CronRecord {
  cronId: string;
  /** The user who created it; others get 404, and its runs are this user's. */
  owner: string;
  assistantId: string;
  /** The thread every fire runs on; null: a new thread per fire. */
  threadId: string | null;
  /** Five-field cron expression (or a nickname such as `@hourly`), read in `timezone`. */
  schedule: string;
  /** IANA time zone of the schedule; null: UTC. */
  timezone: string | null;
  /** No tick after this instant (ISO-8601); null: no end. */
  endTime: string | null;
  enabled: boolean;
  /** Stateless crons: what happens to a fire's thread once its run ended (null on a thread cron). */
  onRunCompleted: "delete" | "keep" | null;
  /** The run-creation fields as the client sent them (LangGraph's `payload`). */
  payload: Record<string, unknown>;
  /** What each fire admits (after the gateway's translation; the run manager applies hygiene). */
  request: RunRequest;
  strategy: MultitaskStrategy;
  metadata: Record<string, unknown>;
  /** The next tick (ISO-8601, UTC, `toISOString()`); null: none left (past `endTime`). */
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type CronSortField = "cronId" | "assistantId" | "threadId" | "createdAt" | "updatedAt" | "nextRunAt" | "endTime";

export interface CronFilter {
  owner: string;
  assistantId?: string;
  threadId?: string;
  enabled?: boolean;
  /** Top-level keys whose values equal these (as JSON). */
  metadata?: Record<string, unknown>;
}

export interface CronSearch extends CronFilter {
  sortBy: CronSortField;
  sortOrder: "asc" | "desc";
  limit: number;
  offset: number;
}

/** The fields an update may replace (`updatedAt` is set from `now`). */
export type CronPatch = Partial<Pick<CronRecord, "schedule" | "timezone" | "endTime" | "enabled" | "onRunCompleted" | "payload" | "request" | "strategy" | "metadata" | "nextRunAt">>;

export interface CronStore {
  /** Create or migrate the schema (optional). */
  init?(): Promise<void>;
  close?(): Promise<void>;
  /** Throws `KEEL_ERR_STORE_CONFLICT` when the id is taken. */
  createCron(cron: CronRecord): Promise<CronRecord>;
  getCron(cronId: string): Promise<CronRecord | null>;
  /** Replaces the given fields; the updated record, or null when there is no such cron. */
  updateCron(cronId: string, patch: CronPatch, now: string): Promise<CronRecord | null>;
  deleteCron(cronId: string): Promise<boolean>;
  /** The owner's crons matching the filter, sorted (ties by `cronId`), paged. */
  searchCrons(search: CronSearch): Promise<CronRecord[]>;
  countCrons(filter: CronFilter): Promise<number>;
  /** Enabled crons whose `nextRunAt` is at or before `now`, earliest first, at most `limit`, across owners. */
  dueCrons(now: string, limit: number): Promise<CronRecord[]>;
  /**
   * The tick's claim, atomic across workers: `nextRunAt` becomes `next` only if it still is
   * `due` and the cron is enabled (compare-and-set); true for the one caller that moved it.
   */
  advanceCron(cronId: string, due: string, next: string | null, now: string): Promise<boolean>;
}

export const CRON_SORT_FIELDS: readonly CronSortField[] = ["cronId", "assistantId", "threadId", "createdAt", "updatedAt", "nextRunAt", "endTime"];
