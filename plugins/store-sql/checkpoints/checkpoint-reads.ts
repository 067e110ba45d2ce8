/**
 * The checkpointer's reads: header rows, a checkpoint's values rebuilt from its snapshot
 * and the deltas on the way (`rebuild.ts`), a snapshot group at once (for `list`), pending
 * writes in LangGraph's order, and the tuple LangGraph expects.
 */
import { compareWritesSortKeys, writesSortKey, type Checkpoint, type CheckpointMetadata, type CheckpointPendingWrite, type CheckpointTuple, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { chainToSnapshot, GroupRebuilder, type ChannelValues, type HeaderLink } from "./rebuild.js";
import { CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE } from "./schema.js";
import { bytesOf, type SqlExecutor, type SqlRow } from "./sql-executor.js";

/** Ids per `IN (…)` list. */
const IN_CHUNK = 400;

export interface HeaderRow extends SqlRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  snapshot_id: string;
  depth: number;
  type: string;
  header: unknown;
  metadata: unknown;
}

export const HEADER_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id, depth, type, header, metadata";
const VALUE_COLUMNS = "checkpoint_id, channel, op, from_index, keep_until, type, value";

export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export function chunks<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class CheckpointReads {
  constructor(
    private readonly executor: SqlExecutor,
    private readonly serde: SerializerProtocol,
  ) {}

  /** One checkpoint's values: its chain's links and rows only. */
  async valuesOf(row: Pick<HeaderRow, "thread_id" | "checkpoint_ns" | "checkpoint_id" | "snapshot_id">): Promise<ChannelValues> {
    const linkRows =
      row.snapshot_id === row.checkpoint_id
        ? [{ checkpoint_id: row.checkpoint_id, parent_checkpoint_id: null, snapshot_id: row.snapshot_id }]
        : await this.executor.all(`SELECT checkpoint_id, parent_checkpoint_id, snapshot_id FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND snapshot_id = ?`, [
            row.thread_id,
            row.checkpoint_ns,
            row.snapshot_id,
          ]);
    const links = toLinks(linkRows);
    const chain = chainToSnapshot(links, row.checkpoint_id);
    const valueRows: SqlRow[] = [];
    for (const part of chunks(chain)) {
      valueRows.push(
        ...(await this.executor.all(`SELECT ${VALUE_COLUMNS} FROM ${VALUES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN (${placeholders(part.length)})`, [
          row.thread_id,
          row.checkpoint_ns,
          ...part,
        ])),
      );
    }
    return new GroupRebuilder(links, valueRows, this.serde).values(row.checkpoint_id);
  }

  /** A whole snapshot group (for `list`, which usually reads many checkpoints of one group). */
  async loadGroup(threadId: string, ns: string, snapshotId: string): Promise<GroupRebuilder> {
    const linkRows = await this.executor.all(`SELECT checkpoint_id, parent_checkpoint_id, snapshot_id FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND snapshot_id = ?`, [threadId, ns, snapshotId]);
    const valueRows = await this.executor.all(`SELECT ${VALUE_COLUMNS} FROM ${VALUES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND snapshot_id = ?`, [threadId, ns, snapshotId]);
    return new GroupRebuilder(toLinks(linkRows), valueRows, this.serde);
  }

  /** Pending writes of some checkpoints of one (thread, namespace), each list in `writesSortKey` order. */
  async pendingWrites(threadId: string, ns: string, checkpointIds: readonly string[]): Promise<Map<string, CheckpointPendingWrite[]>> {
    const rows: SqlRow[] = [];
    for (const part of chunks(checkpointIds)) {
      rows.push(
        ...(await this.executor.all(
          `SELECT checkpoint_id, task_id, idx, channel, type, value, task_path FROM ${WRITES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN (${placeholders(part.length)})`,
          [threadId, ns, ...part],
        )),
      );
    }
    const byCheckpoint = new Map<string, SqlRow[]>();
    for (const row of rows) byCheckpoint.set(String(row.checkpoint_id), [...(byCheckpoint.get(String(row.checkpoint_id)) ?? []), row]);
    const out = new Map<string, CheckpointPendingWrite[]>();
    for (const [id, list] of byCheckpoint) {
      list.sort((a, b) => compareWritesSortKeys(writesSortKey(String(a.task_path), String(a.task_id), Number(a.idx)), writesSortKey(String(b.task_path), String(b.task_id), Number(b.idx))));
      out.set(id, await Promise.all(list.map(async (w) => [String(w.task_id), String(w.channel), await this.serde.loadsTyped(String(w.type), bytesOf(w.value))] as CheckpointPendingWrite)));
    }
    return out;
  }

  /** Pending writes of header rows from any threads, keyed by `[thread, ns, id]` JSON. */
  async pendingWritesOfRows(rows: readonly HeaderRow[]): Promise<Map<string, CheckpointPendingWrite[]>> {
    const groups = new Map<string, { threadId: string; ns: string; ids: string[] }>();
    for (const row of rows) {
      const key = JSON.stringify([row.thread_id, row.checkpoint_ns]);
      const group = groups.get(key) ?? { threadId: row.thread_id, ns: row.checkpoint_ns, ids: [] };
      group.ids.push(row.checkpoint_id);
      groups.set(key, group);
    }
    const out = new Map<string, CheckpointPendingWrite[]>();
    for (const { threadId, ns, ids } of groups.values()) {
      for (const [id, writes] of await this.pendingWrites(threadId, ns, ids)) out.set(JSON.stringify([threadId, ns, id]), writes);
    }
    return out;
  }

  /** The tuple LangGraph expects, from a header row, its values and its pending writes (the metadata parsed unless given). */
  async tuple(row: HeaderRow, values: ChannelValues, pendingWrites: CheckpointPendingWrite[], metadata?: CheckpointMetadata): Promise<CheckpointTuple> {
    const header = (await this.serde.loadsTyped(row.type, bytesOf(row.header))) as Omit<Checkpoint, "channel_values">;
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.checkpoint_id } },
      checkpoint: { ...header, channel_values: values } as Checkpoint,
      metadata: metadata ?? ((await this.serde.loadsTyped(row.type, bytesOf(row.metadata))) as CheckpointMetadata),
      pendingWrites,
    };
    if (row.parent_checkpoint_id) tuple.parentConfig = { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.parent_checkpoint_id } };
    return tuple;
  }
}

function toLinks(rows: readonly SqlRow[]): Map<string, HeaderLink> {
  return new Map(
    rows.map((r) => [String(r.checkpoint_id), { checkpointId: String(r.checkpoint_id), parentId: r.parent_checkpoint_id == null ? null : String(r.parent_checkpoint_id), snapshotId: String(r.snapshot_id) }]),
  );
}
