/**
 * The checkpointer's tables, in the run store's database (SQLite file or PostgreSQL
 * database), created with `CREATE TABLE IF NOT EXISTS`; all names start `keel_ckpt_`.
 *
 * - `keel_ckpt_checkpoints`: one row per checkpoint: its parent, the snapshot it is
 *   rebuilt from (`snapshot_id`, itself for a snapshot) and its distance to it (`depth`),
 *   the checkpoint without its channel values (`header`) and its metadata.
 * - `keel_ckpt_values`: the channel values a checkpoint changed against its parent
 *   (all of them for a snapshot): `op` `set` (the whole value), `splice` (the parent's
 *   list kept from `from_index` to `keep_until`, then `value`'s items appended) or
 *   `unset` (the channel is gone).
 * - `keel_ckpt_writes`: pending writes (`putWrites`), keyed like LangGraph's savers.
 * - `keel_ckpt_meta`: key/value facts (e.g. that a stock store was migrated).
 *
 * Every row of the first three records the lease it was written under (`run_id`,
 * `epoch`; null when the write carried no fence).
 *
 * The snapshot-group indexes lead with `snapshot_id`: an index on (thread, namespace,
 * snapshot) also matched the (thread, namespace) prefix of a lookup by checkpoint id, and
 * PostgreSQL's generic plan for the put function's `DELETE` of a checkpoint's values chose
 * it, scanning every value row of the thread on every step (a put 0.7 ms early in a run,
 * 2 ms by step 2,000). With `snapshot_id` first, a lookup by checkpoint id can only use the primary
 * key. The old indexes (`…_snapshot`) are dropped when the tables are opened.
 */
import type { SqlDialect } from "./sql-executor.js";

export const CHECKPOINTS_TABLE = "keel_ckpt_checkpoints";
export const VALUES_TABLE = "keel_ckpt_values";
export const WRITES_TABLE = "keel_ckpt_writes";
export const META_TABLE = "keel_ckpt_meta";

export function schemaSql(dialect: SqlDialect): string {
  const bytes = dialect === "postgres" ? "BYTEA" : "BLOB";
  const int = dialect === "postgres" ? "BIGINT" : "INTEGER";
  return `
CREATE TABLE IF NOT EXISTS ${CHECKPOINTS_TABLE} (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  snapshot_id TEXT NOT NULL,
  depth INTEGER NOT NULL,
  type TEXT NOT NULL,
  header ${bytes} NOT NULL,
  metadata ${bytes} NOT NULL,
  run_id TEXT,
  epoch ${int},
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
DROP INDEX IF EXISTS keel_ckpt_checkpoints_snapshot;
CREATE INDEX IF NOT EXISTS keel_ckpt_checkpoints_by_snapshot ON ${CHECKPOINTS_TABLE} (snapshot_id, thread_id, checkpoint_ns);
CREATE TABLE IF NOT EXISTS ${VALUES_TABLE} (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  snapshot_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  op TEXT NOT NULL,
  from_index INTEGER,
  keep_until INTEGER,
  type TEXT,
  value ${bytes},
  run_id TEXT,
  epoch ${int},
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, channel)
);
DROP INDEX IF EXISTS keel_ckpt_values_snapshot;
CREATE INDEX IF NOT EXISTS keel_ckpt_values_by_snapshot ON ${VALUES_TABLE} (snapshot_id, thread_id, checkpoint_ns);
CREATE TABLE IF NOT EXISTS ${WRITES_TABLE} (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value ${bytes} NOT NULL,
  task_path TEXT NOT NULL,
  run_id TEXT,
  epoch ${int},
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
CREATE TABLE IF NOT EXISTS ${META_TABLE} (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);`;
}
