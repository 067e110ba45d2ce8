/**
 * The store's tables, as MikroORM `EntitySchema`s (no decorators). Names are fixed and
 * prefixed `keel_` because raw SQL (admission lock, claim, metadata filter) names them
 * and because a PostgreSQL database may also hold LangGraph's checkpoint tables.
 *
 * JSON values (metadata, request, outcome, journal entries, reports) are `text`
 * holding JSON, not `jsonb`: they come back byte for byte as written (jsonb reorders
 * keys), and the same column type works on both dialects. Timestamps are ISO-8601
 * UTC strings, which order correctly as text.
 *
 * The lease (`owner`, `epoch`, `lease_expires_at`) lives on the run row, so a claim,
 * a heartbeat and a terminal write are each one conditional UPDATE of one row.
 */
import { EntitySchema } from "@mikro-orm/core";
import { CronEntity } from "./cron-entity.js";
import { AssistantEntity, AssistantVersionEntity } from "./entities-assistants.js";
import { ItemEntity } from "./item-entity.js";
import { ThreadExpiryEntity } from "./thread-expiry-entity.js";

export const THREADS_TABLE = "keel_threads";
export const RUNS_TABLE = "keel_runs";
export const JOURNAL_TABLE = "keel_journal_entries";
export const REPORTS_TABLE = "keel_reports";
/** The partial unique index that allows one `running` run per thread, whatever the number of workers. */
export const ONE_RUNNING_INDEX = "keel_runs_one_running_per_thread";

export interface ThreadRow {
  threadId: string;
  owner: string;
  status: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
}

export interface RunRow {
  /** The admission sequence (assigned inside the admission transaction): the run record's `sequence`. */
  id?: number;
  runId: string;
  threadId: string;
  assistantId: string;
  status: string;
  outcome?: string | null;
  multitaskStrategy: string;
  owner?: string | null;
  epoch: number;
  leaseExpiresAt?: string | null;
  createdAt: string;
  updatedAt: string;
  /** When the run may start; null: due at once (also rows of an older schema), read back as `createdAt`. */
  dueAt?: string | null;
  userId: string;
  request: string;
}

export interface JournalRow {
  /** Append order. */
  id?: number;
  runId: string;
  seq: number;
  entry: string;
}

export interface ReportRow {
  runId: string;
  report: string;
}

export const ThreadEntity = new EntitySchema<ThreadRow>({
  name: "KeelThread",
  tableName: THREADS_TABLE,
  properties: {
    threadId: { type: "text", primary: true },
    owner: { type: "text", index: "keel_threads_owner_index" },
    status: { type: "text" },
    metadata: { type: "text" },
    createdAt: { type: "text" },
    updatedAt: { type: "text" },
  },
});

export const RunEntity = new EntitySchema<RunRow>({
  name: "KeelRun",
  tableName: RUNS_TABLE,
  properties: {
    id: { type: "integer", primary: true, autoincrement: true },
    runId: { type: "text", unique: "keel_runs_run_id_unique" },
    threadId: { type: "text" },
    assistantId: { type: "text" },
    status: { type: "text" },
    outcome: { type: "text", nullable: true },
    multitaskStrategy: { type: "text" },
    owner: { type: "text", nullable: true },
    epoch: { type: "integer" },
    leaseExpiresAt: { type: "text", nullable: true },
    createdAt: { type: "text" },
    updatedAt: { type: "text" },
    dueAt: { type: "text", nullable: true },
    userId: { type: "text" },
    request: { type: "text" },
  },
  indexes: [
    { name: "keel_runs_thread_status_index", properties: ["threadId", "status"] },
    { name: "keel_runs_status_lease_index", properties: ["status", "leaseExpiresAt"] },
    { name: "keel_runs_status_due_index", properties: ["status", "dueAt"] },
    // Valid on SQLite and PostgreSQL alike. Declared here rather than created beside the
    // schema so that the schema diff knows it and never drops it.
    { name: ONE_RUNNING_INDEX, expression: `create unique index ${ONE_RUNNING_INDEX} on ${RUNS_TABLE} (thread_id) where status = 'running'` },
  ],
});

export const JournalEntity = new EntitySchema<JournalRow>({
  name: "KeelJournalEntry",
  tableName: JOURNAL_TABLE,
  properties: {
    id: { type: "integer", primary: true, autoincrement: true },
    runId: { type: "text", index: "keel_journal_entries_run_id_index" },
    seq: { type: "integer" },
    entry: { type: "text" },
  },
});

export const ReportEntity = new EntitySchema<ReportRow>({
  name: "KeelReport",
  tableName: REPORTS_TABLE,
  properties: {
    runId: { type: "text", primary: true },
    report: { type: "text" },
  },
});

export const STORE_ENTITIES = [ThreadEntity, RunEntity, JournalEntity, ReportEntity, CronEntity, AssistantEntity, AssistantVersionEntity, ItemEntity, ThreadExpiryEntity];
