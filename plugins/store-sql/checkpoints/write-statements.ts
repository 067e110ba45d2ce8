/**
 * A `put` (with the pending writes riding with it) and a `putWrites` as plain statements
 * in one transaction (`WriteBatch`): how SQLite applies them (`sqlite-executor.ts`).
 * PostgreSQL applies the same rows in one statement instead (`postgres-functions.ts`);
 * both write the same rows.
 */
import { CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE } from "./schema.js";
import type { CheckpointWrite, PendingWritesWrite, SqlParam, SqlStatement, WriteBatch } from "./sql-executor.js";

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

const HEADER_INSERT = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id, depth, type, header, metadata, run_id, epoch";
const VALUE_INSERT = "thread_id, checkpoint_ns, checkpoint_id, snapshot_id, channel, op, from_index, keep_until, type, value, run_id, epoch";
const WRITE_INSERT = "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path, run_id, epoch";
const WRITE_KEY = "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx)";

export function checkpointBatch(write: CheckpointWrite): WriteBatch {
  const { fence, base, checkpoint: c, values } = write;
  const runId = fence?.runId ?? null;
  const epoch = fence?.epoch ?? null;
  const statements: SqlStatement[] = [
    {
      sql:
        `INSERT INTO ${CHECKPOINTS_TABLE} (${HEADER_INSERT}) VALUES (${placeholders(11)}) ` +
        `ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET parent_checkpoint_id = excluded.parent_checkpoint_id, snapshot_id = excluded.snapshot_id, ` +
        `depth = excluded.depth, type = excluded.type, header = excluded.header, metadata = excluded.metadata, run_id = excluded.run_id, epoch = excluded.epoch`,
      params: [c.threadId, c.ns, c.checkpointId, c.parentId, c.snapshotId, c.depth, c.type, c.header, c.metadata, runId, epoch],
    },
    // A checkpoint put again under its id replaces its rows (as LangGraph's savers replace it).
    { sql: `DELETE FROM ${VALUES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, params: [c.threadId, c.ns, c.checkpointId] },
  ];
  if (values.length > 0) {
    const params: SqlParam[] = [];
    for (const v of values) params.push(c.threadId, c.ns, c.checkpointId, c.snapshotId, v.channel, v.op, v.from, v.keep, v.type, v.value, runId, epoch);
    const row = `(${placeholders(12)})`;
    statements.push({ sql: `INSERT INTO ${VALUES_TABLE} (${VALUE_INSERT}) VALUES ${values.map(() => row).join(", ")}`, params });
  }
  for (const w of write.pendingWrites ?? []) statements.push(...pendingWritesBatch(w).statements);
  const guard: SqlStatement | undefined = base
    ? { sql: `SELECT 1 AS one FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND snapshot_id = ?`, params: [c.threadId, c.ns, base.checkpointId, base.snapshotId] }
    : undefined;
  return { ...(fence ? { fence } : {}), ...(guard ? { guard } : {}), statements };
}

export function pendingWritesBatch(write: PendingWritesWrite): WriteBatch {
  const { fence, threadId, ns, checkpointId, taskId, taskPath } = write;
  const rowOf = (r: PendingWritesWrite["rows"][number]): SqlParam[] => [threadId, ns, checkpointId, taskId, r.idx, r.channel, r.type, r.value, taskPath, fence?.runId ?? null, fence?.epoch ?? null];
  const statements: SqlStatement[] = [];
  const ordinary = write.rows.filter((r) => !r.special);
  if (ordinary.length > 0) {
    statements.push({
      sql: `INSERT INTO ${WRITES_TABLE} (${WRITE_INSERT}) VALUES ${ordinary.map(() => `(${placeholders(11)})`).join(", ")} ON CONFLICT ${WRITE_KEY} DO NOTHING`,
      params: ordinary.flatMap(rowOf),
    });
  }
  // Special writes (errors, interrupts, …) replace, in order; ordinary ones are written once.
  for (const r of write.rows.filter((w) => w.special)) {
    statements.push({
      sql: `INSERT INTO ${WRITES_TABLE} (${WRITE_INSERT}) VALUES (${placeholders(11)}) ON CONFLICT ${WRITE_KEY} DO UPDATE SET channel = excluded.channel, type = excluded.type, value = excluded.value, task_path = excluded.task_path, run_id = excluded.run_id, epoch = excluded.epoch`,
      params: rowOf(r),
    });
  }
  return { ...(fence ? { fence } : {}), statements };
}
