/** Conversions between the store's records (kernel/runs/types.ts) and table rows. */
import type { MultitaskStrategy, RunRecord, RunRecordStatus, RunRequest, ThreadRecord, ThreadStatus } from "../../kernel/runs/types.js";
import type { StatusV2Payload } from "../../kernel/loop/status.js";
import type { RunRow, ThreadRow } from "./entities.js";

export function threadToRow(thread: ThreadRecord): ThreadRow {
  return {
    threadId: thread.threadId,
    owner: thread.owner,
    status: thread.status,
    metadata: JSON.stringify(thread.metadata ?? {}),
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
  };
}

export function rowToThread(row: ThreadRow): ThreadRecord {
  return {
    threadId: row.threadId,
    owner: row.owner,
    status: row.status as ThreadStatus,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The row of a newly admitted run: `pending`, with no lease and no outcome whatever the
 * caller passed — or `running` under the lease `started` gives (a start at admission).
 */
export function admittedRunRow(run: RunRecord, started: Pick<RunRecord, "status" | "owner" | "epoch" | "leaseExpiresAt" | "updatedAt"> | null = null): RunRow {
  const row: RunRow = {
    runId: run.runId,
    threadId: run.threadId,
    assistantId: run.assistantId,
    status: "pending",
    outcome: null,
    multitaskStrategy: run.multitaskStrategy,
    owner: null,
    epoch: run.epoch,
    leaseExpiresAt: null,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    // Null: due at once, whatever the clocks of other workers say (read back as `createdAt`).
    dueAt: run.dueAt ?? null,
    userId: run.user,
    request: JSON.stringify(run.request),
  };
  if (started) Object.assign(row, { status: started.status, owner: started.owner, epoch: started.epoch, leaseExpiresAt: started.leaseExpiresAt, updatedAt: started.updatedAt });
  return row;
}

export function rowToRun(row: RunRow): RunRecord {
  const record: RunRecord = {
    runId: row.runId,
    threadId: row.threadId,
    assistantId: row.assistantId,
    status: row.status as RunRecordStatus,
    multitaskStrategy: row.multitaskStrategy as MultitaskStrategy,
    // PostgreSQL returns integers from raw queries as numbers, but be strict anyway.
    epoch: Number(row.epoch),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    dueAt: row.dueAt ?? row.createdAt,
    user: row.userId,
    request: JSON.parse(row.request) as RunRequest,
  };
  if (row.id != null) record.sequence = Number(row.id);
  if (row.outcome != null) record.outcome = JSON.parse(row.outcome) as StatusV2Payload;
  if (row.owner != null) record.owner = row.owner;
  if (row.leaseExpiresAt != null) record.leaseExpiresAt = row.leaseExpiresAt;
  return record;
}

/** A `keel_runs` row as the drivers return it from raw SQL (column names). */
export interface RawRunRow {
  id: number | string;
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
  due_at: string | null;
  user_id: string;
  request: string;
}

export function rawToRun(raw: RawRunRow): RunRecord {
  return rowToRun({
    id: Number(raw.id), runId: raw.run_id, threadId: raw.thread_id, assistantId: raw.assistant_id, status: raw.status, outcome: raw.outcome,
    multitaskStrategy: raw.multitask_strategy, owner: raw.owner, epoch: Number(raw.epoch), leaseExpiresAt: raw.lease_expires_at,
    createdAt: raw.created_at, updatedAt: raw.updated_at, dueAt: raw.due_at, userId: raw.user_id, request: raw.request,
  });
}
