/**
 * PostgreSQL: a checkpoint write is one round trip. Two plpgsql functions, created with
 * the tables (`schemaSql`), each do in one statement what SQLite does in its `BEGIN
 * IMMEDIATE` transaction (`write-statements.ts`): read the run's lease row `FOR SHARE`
 * (so a concurrent claim waits for the commit), check the fence and, for a delta, that its
 * base is still stored as cached, and only then write the rows; they return what they read,
 * so the saver can say why a write was refused.
 *
 * The lease rule here is `assertLeaseHeld`'s (`fence.ts`): the run exists, is `running`
 * under the fence's epoch, and its `lease_expires_at` is after the holder's clock (ISO-8601
 * text, compared byte-wise: `COLLATE "C"`, as JavaScript compares the strings). A database
 * without `keel_runs` has nothing to check against; the test-only switch (`enforce` false)
 * refuses nothing. Keep the two in step.
 *
 * A `put` may carry the pending writes of the step that produced it (`pendingWrites` of
 * `CheckpointWrite`): `keel_ckpt_put_v2` writes them in the same statement, so a step is one
 * commit. `keel_ckpt_insert_writes_v1` is the rows' insert both write functions share.
 *
 * The names carry a version: a changed signature gets a new name, so workers of two
 * versions can share a database (`keel_ckpt_put_v1`, which older workers call, is
 * `keel_ckpt_put_v2` without writes).
 */
import { RUNS_TABLE } from "../entities.js";
import { CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE } from "./schema.js";

export const FENCE_FUNCTION = "keel_ckpt_fence_v1";
export const PUT_FUNCTION = "keel_ckpt_put_v2";
export const PUT_WRITES_FUNCTION = "keel_ckpt_put_writes_v1";
const PUT_V1_FUNCTION = "keel_ckpt_put_v1";
const INSERT_WRITES_FUNCTION = "keel_ckpt_insert_writes_v1";

/** The OUT columns both write functions return. */
const READS_OUT = "OUT o_written boolean, OUT o_has_runs boolean, OUT o_lease_found boolean, OUT o_epoch bigint, OUT o_status text, OUT o_expires text";
const FENCE_ARGS = "p_run_id text, p_epoch bigint, p_now text, p_enforce boolean";
const PUT_ARGS = `${FENCE_ARGS}, p_base_id text, p_base_snapshot text,
  p_thread text, p_ns text, p_id text, p_parent text, p_snapshot text, p_depth integer, p_type text, p_header bytea, p_metadata bytea,
  p_channels text[], p_ops text[], p_froms integer[], p_keeps integer[], p_types text[], p_values bytea[]`;
const PUT_V1_PARAMS = "p_run_id, p_epoch, p_now, p_enforce, p_base_id, p_base_snapshot, p_thread, p_ns, p_id, p_parent, p_snapshot, p_depth, p_type, p_header, p_metadata, p_channels, p_ops, p_froms, p_keeps, p_types, p_values";
/** Pending writes as columns: one element per write (its checkpoint, task, task path, index, channel, type, value, whether special). */
const WRITES_ARGS = "p_w_ids text[], p_w_tasks text[], p_w_paths text[], p_w_idx integer[], p_w_channels text[], p_w_types text[], p_w_values bytea[], p_w_special boolean[]";
const FENCE_INTO = `SELECT f.o_written, f.o_has_runs, f.o_lease_found, f.o_epoch, f.o_status, f.o_expires INTO o_written, o_has_runs, o_lease_found, o_epoch, o_status, o_expires
    FROM ${FENCE_FUNCTION}(p_run_id, p_epoch, p_now, p_enforce) f;`;

export const postgresFunctionsSql = `
CREATE OR REPLACE FUNCTION ${FENCE_FUNCTION}(${FENCE_ARGS}, ${READS_OUT})
LANGUAGE plpgsql AS $keel$
BEGIN
  o_written := true;
  o_has_runs := false;
  o_lease_found := false;
  IF p_run_id IS NULL THEN RETURN; END IF;
  o_has_runs := to_regclass('${RUNS_TABLE}') IS NOT NULL;
  IF NOT o_has_runs THEN RETURN; END IF;
  SELECT r.epoch, r.status, r.lease_expires_at INTO o_epoch, o_status, o_expires FROM ${RUNS_TABLE} r WHERE r.run_id = p_run_id FOR SHARE;
  o_lease_found := FOUND;
  o_written := NOT p_enforce OR (o_lease_found AND o_epoch = p_epoch AND o_status = 'running' AND o_expires IS NOT NULL AND o_expires COLLATE "C" > p_now COLLATE "C");
END
$keel$;
CREATE OR REPLACE FUNCTION ${INSERT_WRITES_FUNCTION}(p_thread text, p_ns text, ${WRITES_ARGS}, p_run_id text, p_epoch bigint) RETURNS void
LANGUAGE plpgsql AS $keel$
BEGIN
  -- Ordinary writes are written once; special ones (errors, interrupts, …) replace, in order.
  INSERT INTO ${WRITES_TABLE} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path, run_id, epoch)
    SELECT p_thread, p_ns, u.id, u.task, u.idx, u.channel, u.type, u.value, u.path, p_run_id, p_epoch
    FROM unnest(p_w_ids, p_w_tasks, p_w_paths, p_w_idx, p_w_channels, p_w_types, p_w_values, p_w_special) AS u(id, task, path, idx, channel, type, value, special) WHERE NOT u.special
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING;
  FOR i IN 1 .. coalesce(array_length(p_w_idx, 1), 0) LOOP
    CONTINUE WHEN NOT p_w_special[i];
    INSERT INTO ${WRITES_TABLE} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path, run_id, epoch)
      VALUES (p_thread, p_ns, p_w_ids[i], p_w_tasks[i], p_w_idx[i], p_w_channels[i], p_w_types[i], p_w_values[i], p_w_paths[i], p_run_id, p_epoch)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET channel = excluded.channel, type = excluded.type, value = excluded.value,
        task_path = excluded.task_path, run_id = excluded.run_id, epoch = excluded.epoch;
  END LOOP;
END
$keel$;
CREATE OR REPLACE FUNCTION ${PUT_FUNCTION}(${PUT_ARGS}, ${WRITES_ARGS}, ${READS_OUT}, OUT o_guard boolean)
LANGUAGE plpgsql AS $keel$
BEGIN
  ${FENCE_INTO}
  o_guard := p_base_id IS NULL OR EXISTS (SELECT 1 FROM ${CHECKPOINTS_TABLE} c WHERE c.thread_id = p_thread AND c.checkpoint_ns = p_ns AND c.checkpoint_id = p_base_id AND c.snapshot_id = p_base_snapshot);
  o_written := o_written AND o_guard;
  IF NOT o_written THEN RETURN; END IF;
  PERFORM ${INSERT_WRITES_FUNCTION}(p_thread, p_ns, p_w_ids, p_w_tasks, p_w_paths, p_w_idx, p_w_channels, p_w_types, p_w_values, p_w_special, p_run_id, p_epoch);
  INSERT INTO ${CHECKPOINTS_TABLE} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id, depth, type, header, metadata, run_id, epoch)
    VALUES (p_thread, p_ns, p_id, p_parent, p_snapshot, p_depth, p_type, p_header, p_metadata, p_run_id, p_epoch)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET parent_checkpoint_id = excluded.parent_checkpoint_id, snapshot_id = excluded.snapshot_id,
      depth = excluded.depth, type = excluded.type, header = excluded.header, metadata = excluded.metadata, run_id = excluded.run_id, epoch = excluded.epoch;
  -- A checkpoint put again under its id replaces its rows.
  DELETE FROM ${VALUES_TABLE} v WHERE v.thread_id = p_thread AND v.checkpoint_ns = p_ns AND v.checkpoint_id = p_id;
  INSERT INTO ${VALUES_TABLE} (thread_id, checkpoint_ns, checkpoint_id, snapshot_id, channel, op, from_index, keep_until, type, value, run_id, epoch)
    SELECT p_thread, p_ns, p_id, p_snapshot, u.channel, u.op, u.from_index, u.keep_until, u.type, u.value, p_run_id, p_epoch
    FROM unnest(p_channels, p_ops, p_froms, p_keeps, p_types, p_values) AS u(channel, op, from_index, keep_until, type, value);
END
$keel$;
CREATE OR REPLACE FUNCTION ${PUT_V1_FUNCTION}(${PUT_ARGS}, ${READS_OUT}, OUT o_guard boolean)
LANGUAGE sql AS $keel$
  SELECT * FROM ${PUT_FUNCTION}(${PUT_V1_PARAMS}, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}')
$keel$;
CREATE OR REPLACE FUNCTION ${PUT_WRITES_FUNCTION}(${FENCE_ARGS},
  p_thread text, p_ns text, p_id text, p_task text, p_task_path text,
  p_idx integer[], p_channels text[], p_types text[], p_values bytea[], p_special boolean[],
  ${READS_OUT})
LANGUAGE plpgsql AS $keel$
DECLARE
  n integer := coalesce(array_length(p_idx, 1), 0);
BEGIN
  ${FENCE_INTO}
  IF NOT o_written THEN RETURN; END IF;
  PERFORM ${INSERT_WRITES_FUNCTION}(p_thread, p_ns, array_fill(p_id, ARRAY[n]), array_fill(p_task, ARRAY[n]), array_fill(p_task_path, ARRAY[n]),
    p_idx, p_channels, p_types, p_values, p_special, p_run_id, p_epoch);
END
$keel$`;

export const PUT_CALL = `SELECT * FROM ${PUT_FUNCTION}(${Array.from({ length: 29 }, (_, i) => `$${i + 1}`).join(", ")})`;
export const PUT_WRITES_CALL = `SELECT * FROM ${PUT_WRITES_FUNCTION}(${Array.from({ length: 14 }, (_, i) => `$${i + 1}`).join(", ")})`;
