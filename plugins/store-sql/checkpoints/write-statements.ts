/**
 * A `put` (with the pending writes riding with it) and a `putWrites` as plain statements
 * in one transaction (`WriteBatch`): how SQLite applies them (`sqlite-executor.ts`).
 * PostgreSQL applies the same rows in one statement instead (`postgres-functions.ts`);
 * both write the same rows.
 */
import { CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE } from "./schema.js";
import type { CheckpointWrite, PendingWritesWrite, SqlParam, SqlStatement, WriteBatch } from "./sql-executor.js";

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

/** One SQL text per shape (the number of rows an insert carries, up to 64), built once: a step's statements are the same few texts. */
function textsByRows(build: (rows: number) => string): (rows: number) => string {
  const texts: string[] = [];
  return (rows) => (rows > 64 ? build(rows) : (texts[rows] ??= build(rows)));
}

const HEADER_INSERT = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id, depth, type, header, metadata, run_id, epoch";
const VALUE_INSERT = "thread_id, checkpoint_ns, checkpoint_id, snapshot_id, channel, op, from_index, keep_until, type, value, run_id, epoch";
const WRITE_INSERT = "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path, run_id, epoch";
const WRITE_KEY = "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx)";

const CHECKPOINT_INSERT = `INSERT INTO ${CHECKPOINTS_TABLE} (${HEADER_INSERT}) VALUES (${placeholders(11)}) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO NOTHING`;
const CHECKPOINT_UPDATE =
  `UPDATE ${CHECKPOINTS_TABLE} SET parent_checkpoint_id = ?, snapshot_id = ?, depth = ?, type = ?, header = ?, metadata = ?, run_id = ?, epoch = ? ` +
  `WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`;
const VALUES_DELETE = `DELETE FROM ${VALUES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`;
const valuesInsert = textsByRows((rows) => `INSERT INTO ${VALUES_TABLE} (${VALUE_INSERT}) VALUES ${Array.from({ length: rows }, () => `(${placeholders(12)})`).join(", ")}`);
const writesInsert = textsByRows((rows) => `INSERT INTO ${WRITES_TABLE} (${WRITE_INSERT}) VALUES ${Array.from({ length: rows }, () => `(${placeholders(11)})`).join(", ")} ON CONFLICT ${WRITE_KEY} DO NOTHING`);
const SPECIAL_WRITE_UPSERT =
  `INSERT INTO ${WRITES_TABLE} (${WRITE_INSERT}) VALUES (${placeholders(11)}) ON CONFLICT ${WRITE_KEY} DO UPDATE SET channel = excluded.channel, type = excluded.type, ` +
  `value = excluded.value, task_path = excluded.task_path, run_id = excluded.run_id, epoch = excluded.epoch`;
const GUARD_SELECT = `SELECT 1 AS one FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND snapshot_id = ?`;

export function checkpointBatch(write: CheckpointWrite): WriteBatch {
  const { fence, base, checkpoint: c, values } = write;
  const runId = fence?.runId ?? null;
  const epoch = fence?.epoch ?? null;
  const key = [c.threadId, c.ns, c.checkpointId];
  const statements: SqlStatement[] = [
    {
      sql: CHECKPOINT_INSERT,
      params: [c.threadId, c.ns, c.checkpointId, c.parentId, c.snapshotId, c.depth, c.type, c.header, c.metadata, runId, epoch],
      // A checkpoint put again under its id replaces its header and its rows (as LangGraph's savers replace it).
      otherwise: [
        { sql: CHECKPOINT_UPDATE, params: [c.parentId, c.snapshotId, c.depth, c.type, c.header, c.metadata, runId, epoch, ...key] },
        { sql: VALUES_DELETE, params: key },
      ],
    },
  ];
  if (values.length > 0) {
    const params: SqlParam[] = [];
    for (const v of values) params.push(c.threadId, c.ns, c.checkpointId, c.snapshotId, v.channel, v.op, v.from, v.keep, v.type, v.value, runId, epoch);
    statements.push({ sql: valuesInsert(values.length), params });
  }
  for (const w of write.pendingWrites ?? []) statements.push(...pendingWritesBatch(w).statements);
  const guard: SqlStatement | undefined = base ? { sql: GUARD_SELECT, params: [c.threadId, c.ns, base.checkpointId, base.snapshotId] } : undefined;
  return { ...(fence ? { fence } : {}), ...(guard ? { guard } : {}), statements };
}

export function pendingWritesBatch(write: PendingWritesWrite): WriteBatch {
  const { fence, threadId, ns, checkpointId, taskId, taskPath } = write;
  const rowOf = (r: PendingWritesWrite["rows"][number]): SqlParam[] => [threadId, ns, checkpointId, taskId, r.idx, r.channel, r.type, r.value, taskPath, fence?.runId ?? null, fence?.epoch ?? null];
  const statements: SqlStatement[] = [];
  const ordinary = write.rows.filter((r) => !r.special);
  if (ordinary.length > 0) statements.push({ sql: writesInsert(ordinary.length), params: ordinary.flatMap(rowOf) });
  // Special writes (errors, interrupts, …) replace, in order; ordinary ones are written once.
  for (const r of write.rows.filter((w) => w.special)) statements.push({ sql: SPECIAL_WRITE_UPSERT, params: rowOf(r) });
  return { ...(fence ? { fence } : {}), statements };
}
