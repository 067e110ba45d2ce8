/**
 * Keel's checkpointer: a LangGraph `BaseCheckpointSaver` that appends what changed.
 *
 * Each `put` stores the checkpoint's header (versions, `versions_seen`), its metadata and,
 * per channel, only what changed against the parent checkpoint (`channel-diff.ts`: new
 * list items as a splice, other values whole when they are not the parent's); every
 * `snapshotEvery` steps along a thread's history, and whenever the parent's values are not
 * at hand (another process wrote it, a fork from an older checkpoint), it stores a full
 * snapshot instead. A read rebuilds a checkpoint from its snapshot plus the deltas on the
 * way (`rebuild.ts`); `list` reads a range of headers and each snapshot group once.
 *
 * Dialect-independent over a `SqlExecutor` (SQLite on a better-sqlite3 handle, PostgreSQL
 * on a `pg` Pool). Serialization is the saver's `serde` (JsonPlusSerializer by default),
 * value by value, so values round-trip as with LangGraph's own savers. Writes are
 * committed before `put`/`putWrites` resolve (a step's `putWrites` ride in its `put`'s
 * transaction: `parked-writes.ts`); a write carrying a lease fence
 * (`fence.ts`) is checked against the run store's lease in the same transaction (on
 * PostgreSQL a `put` or `putWrites` is one statement, one round trip: `postgres-functions.ts`).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  copyCheckpoint,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { KeelError } from "../../../kernel/errors.js";
import { fencingDisabled } from "../../../kernel/ports/fence.js";
import { diffChannels, type ChannelChange } from "./channel-diff.js";
import { assertLeaseHeld, fenceOf, type LeaseFence } from "./fence.js";
import { CheckpointReads, chunks, HEADER_COLUMNS, placeholders, type HeaderRow } from "./checkpoint-reads.js";
import { headKey, HeadCache, type Head } from "./head-cache.js";
import { ListBytes } from "./list-bytes.js";
import { ParkedWrites } from "./parked-writes.js";
import { chainToSnapshot, GroupRebuilder, type ChannelValues, type HeaderLink } from "./rebuild.js";
import { CHECKPOINTS_TABLE, META_TABLE, schemaSql, VALUES_TABLE, WRITES_TABLE } from "./schema.js";
import { postgresFunctionsSql } from "./postgres-functions.js";
import {
  bytesOf,
  type CheckpointWrite,
  type PendingWriteRow,
  type PendingWritesWrite,
  type SqlExecutor,
  type SqlParam,
  type SqlStatement,
  type ValueRow,
  type WriteBatch,
  type WriteJudge,
} from "./sql-executor.js";

export const DEFAULT_SNAPSHOT_EVERY = 100;
export const DEFAULT_HEAD_CACHE_SIZE = 256;
/** 32 MiB: the head cache's bound in serialized bytes (a thread's values can be large: a 900 KiB input). */
export const DEFAULT_HEAD_CACHE_BYTES = 32 * 1024 * 1024;
const LIST_PAGE = 64;

export interface KeelCheckpointSaverOptions {
  /**
   * A full snapshot every this many checkpoints along a history (default 100): a read
   * replays at most `snapshotEvery - 1` deltas; storage grows by one full state per
   * `snapshotEvery` steps. 1 stores every checkpoint whole.
   */
  snapshotEvery?: number;
  /** Threads whose newest checkpoint's values are kept (references, not copies) to diff the next step against (default 256). */
  headCacheSize?: number;
  /** …and at most this many bytes of them, as serialized when written (default 32 MiB); the least recently written thread goes first. */
  headCacheBytes?: number;
  serde?: SerializerProtocol;
  /** The clock a lease's expiry is compared with (ms since the epoch; default `Date.now`). */
  now?: () => number;
}

const VALUE_INSERT = "thread_id, checkpoint_ns, checkpoint_id, snapshot_id, channel, op, from_index, keep_until, type, value, run_id, epoch";

function requireThread(config: RunnableConfig, what: string): string {
  const threadId = config.configurable?.thread_id;
  if (threadId === undefined || threadId === null || threadId === "") {
    throw new Error(`Failed to ${what}: the RunnableConfig has no "thread_id" in its "configurable" property.`);
  }
  return String(threadId);
}

export class KeelCheckpointSaver extends BaseCheckpointSaver {
  readonly snapshotEvery: number;
  private readonly heads: HeadCache;
  private readonly now: () => number;
  private ready: Promise<void>;
  /** The tables exist (what `whenReady` steps themselves wait for). */
  private readonly created: Promise<void>;
  /** `putWrites` waiting to ride with their step's `put` (`parked-writes.ts`). */
  private readonly parked = new ParkedWrites(
    (write) => this.executor.putPendingWrites(write, this.judge(write.fence)),
    (threadId, ns) => this.putsInFlight.get(headKey(threadId, ns)),
  );
  /** Lists serialized from their items' bytes, each item once (`list-bytes.ts`). */
  private readonly lists: ListBytes;
  /** Header rows, values rebuilt from snapshots and deltas, pending writes (`checkpoint-reads.ts`). */
  private readonly reads: CheckpointReads;
  /** The `put` being written per (thread, namespace), so parked writes wait for the `put` chained after it. */
  private readonly putsInFlight = new Map<string, Promise<unknown>>();

  /** Creates the tables if needed (synchronously on SQLite; on PostgreSQL every call waits for it). */
  constructor(
    readonly executor: SqlExecutor,
    options: KeelCheckpointSaverOptions = {},
  ) {
    super(options.serde);
    const every = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`snapshotEvery must be a positive integer, got ${every}`);
    this.snapshotEvery = every;
    this.heads = new HeadCache(Math.max(0, options.headCacheSize ?? DEFAULT_HEAD_CACHE_SIZE), Math.max(0, options.headCacheBytes ?? DEFAULT_HEAD_CACHE_BYTES));
    this.now = options.now ?? Date.now;
    this.lists = new ListBytes(this.serde);
    this.reads = new CheckpointReads(executor, this.serde);
    const created = executor.exec(executor.dialect === "postgres" ? `${schemaSql("postgres")}\n${postgresFunctionsSql}` : schemaSql("sqlite"));
    this.created = created instanceof Promise ? created : Promise.resolve();
    this.created.catch(() => undefined);
    this.ready = this.created;
  }

  /** Resolves once the tables exist (and any step queued with `whenReady` finished); rejects with its error. */
  async setup(): Promise<void> {
    await this.ready;
  }

  /** Runs `step` (e.g. a migration) before any other call is served. */
  whenReady(step: () => Promise<void>): void {
    this.ready = this.ready.then(step);
    this.ready.catch(() => undefined);
  }

  // ---- reads ---------------------------------------------------------------------------

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.ready;
    const threadId = requireThread(config, "get a checkpoint");
    const ns = String(config.configurable?.checkpoint_ns ?? "");
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    const rows = checkpointId
      ? await this.executor.all(`SELECT ${HEADER_COLUMNS} FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, [threadId, ns, checkpointId])
      : await this.executor.all(`SELECT ${HEADER_COLUMNS} FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`, [threadId, ns]);
    const row = rows[0] as HeaderRow | undefined;
    if (!row) return undefined;
    const values = await this.reads.valuesOf(row);
    const [writes] = [await this.reads.pendingWrites(threadId, ns, [row.checkpoint_id])];
    return this.reads.tuple(row, values, writes.get(row.checkpoint_id) ?? []);
  }

  override async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    await this.ready;
    const { before, filter } = options;
    let remaining = options.limit;
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const onlyId = config.configurable?.checkpoint_id as string | undefined;
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    const where: string[] = [];
    const params: SqlParam[] = [];
    if (threadId) (where.push("thread_id = ?"), params.push(String(threadId)));
    if (ns !== undefined && ns !== null) (where.push("checkpoint_ns = ?"), params.push(String(ns)));
    if (onlyId) (where.push("checkpoint_id = ?"), params.push(onlyId));
    if (beforeId) (where.push("checkpoint_id < ?"), params.push(beforeId));
    const keyset = Boolean(threadId) && ns !== undefined && ns !== null;
    const pageSize = filter === undefined && remaining !== undefined ? Math.max(1, Math.min(remaining, LIST_PAGE)) : LIST_PAGE;
    const groups = new Map<string, GroupRebuilder>();
    let offset = 0;
    let lastId: string | undefined;
    for (;;) {
      if (remaining !== undefined && remaining <= 0) return;
      const pageWhere = keyset && lastId !== undefined ? [...where, "checkpoint_id < ?"] : where;
      const pageParams = keyset && lastId !== undefined ? [...params, lastId] : params;
      const order = keyset ? "checkpoint_id DESC" : "thread_id, checkpoint_ns, checkpoint_id DESC";
      const paging = keyset ? `LIMIT ${pageSize}` : `LIMIT ${pageSize} OFFSET ${offset}`;
      const page = (await this.executor.all(
        `SELECT ${HEADER_COLUMNS} FROM ${CHECKPOINTS_TABLE}${pageWhere.length ? ` WHERE ${pageWhere.join(" AND ")}` : ""} ORDER BY ${order} ${paging}`,
        pageParams,
      )) as HeaderRow[];
      if (page.length === 0) return;
      offset += page.length;
      lastId = page[page.length - 1]!.checkpoint_id;
      const selected: Array<{ row: HeaderRow; metadata: CheckpointMetadata }> = [];
      for (const row of page) {
        const metadata = (await this.serde.loadsTyped(row.type, bytesOf(row.metadata))) as CheckpointMetadata;
        if (filter && !Object.entries(filter).every(([key, value]) => (metadata as Record<string, unknown>)[key] === value)) continue;
        selected.push({ row, metadata });
        if (remaining !== undefined && selected.length >= remaining) break;
      }
      const writes = await this.reads.pendingWritesOfRows(selected.map((s) => s.row));
      for (const { row, metadata } of selected) {
        const groupKey = JSON.stringify([row.thread_id, row.checkpoint_ns, row.snapshot_id]);
        let group = groups.get(groupKey);
        if (!group) {
          group = await this.reads.loadGroup(row.thread_id, row.checkpoint_ns, row.snapshot_id);
          groups.set(groupKey, group);
        }
        const values = await group.values(row.checkpoint_id);
        const own = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Array.isArray(v) ? v.slice() : v]));
        const key = JSON.stringify([row.thread_id, row.checkpoint_ns, row.checkpoint_id]);
        yield this.reads.tuple(row, own, writes.get(key) ?? [], metadata);
        if (remaining !== undefined) remaining -= 1;
        if (remaining !== undefined && remaining <= 0) return;
      }
      if (page.length < pageSize) return;
    }
  }

  // ---- writes --------------------------------------------------------------------------

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _newVersions: ChannelVersions): Promise<RunnableConfig> {
    await this.ready;
    return this.putNow(config, checkpoint, metadata);
  }

  /** `put` without waiting for `whenReady` steps (a migration importing into this saver). */
  async putNow(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const threadId = requireThread(config, "put a checkpoint");
    const ns = String(config.configurable?.checkpoint_ns ?? "");
    const parentId = (config.configurable?.checkpoint_id as string | undefined) || null;
    const fence = fenceOf(config);
    const prepared = copyCheckpoint(checkpoint);
    const key = headKey(threadId, ns);
    const head = this.heads.get(key);
    const base = head !== undefined && parentId !== null && head.checkpointId === parentId && head.checkpointId !== prepared.id && head.depth + 1 < this.snapshotEvery ? head : undefined;
    // The step's pending writes (on the parent) are committed with this checkpoint.
    const riding = parentId !== null && parentId !== prepared.id ? this.parked.take(threadId, ns, parentId, fence) : undefined;
    const writing = (async () => {
      const put = { threadId, ns, parentId, fence, prepared, metadata, key, pendingWrites: (await riding?.writes()) ?? [] };
      try {
        await this.putRows(put, base);
      } catch (error) {
        if (!(error instanceof StaleHead)) throw error;
        // The cached parent changed under us (pruned or deleted elsewhere): store a snapshot.
        this.heads.drop(key);
        await this.putRows(put, undefined);
      }
    })();
    this.putsInFlight.set(key, writing);
    try {
      await writing;
    } catch (error) {
      riding?.settle(error);
      throw error;
    } finally {
      if (this.putsInFlight.get(key) === writing) this.putsInFlight.delete(key);
    }
    riding?.settle();
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: prepared.id } };
  }

  /** Writes one checkpoint: a delta against `base` (the cached parent), or a snapshot without it. */
  private async putRows(
    put: { threadId: string; ns: string; parentId: string | null; fence: LeaseFence | undefined; prepared: Checkpoint; metadata: CheckpointMetadata; key: string; pendingWrites: readonly PendingWritesWrite[] },
    base: Head | undefined,
  ): Promise<void> {
    const { threadId, ns, parentId, fence, prepared, metadata } = put;
    const values = prepared.channel_values as ChannelValues;
    const snapshotId = base ? base.snapshotId : prepared.id;
    const depth = base ? base.depth + 1 : 0;
    const changes: Map<string, ChannelChange> = diffChannels(base?.values ?? {}, values);
    const { channel_values: _values, ...header } = prepared;
    const [[type, headerBytes], [metadataType, metadataBytes]] = await Promise.all([this.serde.dumpsTyped(header), this.serde.dumpsTyped(metadata)]);
    if (type !== metadataType) throw new Error("Failed to serialize the checkpoint and its metadata to the same type.");
    const valueRows: ValueRow[] = [];
    const channelBytes: Record<string, number> = { ...base?.channelBytes };
    for (const [channel, change] of changes) {
      if (change.op === "same") continue;
      if (change.op === "unset") {
        delete channelBytes[channel];
        valueRows.push({ channel, op: "unset", from: null, keep: null, type: null, value: null });
      }
      if (change.op === "set") {
        const [valueType, bytes] = await this.lists.dumpsTyped(change.value);
        channelBytes[channel] = bytes.byteLength;
        valueRows.push({ channel, op: "set", from: null, keep: null, type: valueType, value: bytes });
      }
      if (change.op === "splice") {
        const [valueType, bytes] = await this.lists.dumpsTyped(change.items);
        channelBytes[channel] = (channelBytes[channel] ?? 0) + bytes.byteLength;
        valueRows.push({ channel, op: "splice", from: change.from, keep: change.keep, type: valueType, value: bytes });
      }
    }
    const write: CheckpointWrite = {
      ...(fence ? { fence } : {}),
      ...(base ? { base: { checkpointId: base.checkpointId, snapshotId: base.snapshotId } } : {}),
      checkpoint: { threadId, ns, checkpointId: prepared.id, parentId, snapshotId, depth, type, header: headerBytes, metadata: metadataBytes },
      values: valueRows,
      ...(put.pendingWrites.length > 0 ? { pendingWrites: put.pendingWrites } : {}),
    };
    await this.executor.putCheckpoint(write, this.judge(fence));
    const bytes = Object.values(channelBytes).reduce((sum, n) => sum + n, 0);
    this.heads.remember(put.key, { checkpointId: prepared.id, snapshotId, depth, values, channelBytes, bytes });
  }

  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return this.putWritesNow(config, writes, taskId, taskPath, this.ready);
  }

  /**
   * `putWrites` without waiting for `whenReady` steps (`after`: what to wait for first).
   * Parked at once (before any await), so the step's `put` that follows finds it.
   */
  putWritesNow(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string, after: Promise<void> = this.created): Promise<void> {
    try {
      const threadId = requireThread(config, "put writes");
      const checkpointId = config.configurable?.checkpoint_id as string | undefined;
      if (!checkpointId) throw new Error(`Failed to put writes: the RunnableConfig has no "checkpoint_id" in its "configurable" property.`);
      const ns = String(config.configurable?.checkpoint_ns ?? "");
      const fence = fenceOf(config);
      const prepared = (async (): Promise<PendingWritesWrite | undefined> => {
        await after;
        const rows: PendingWriteRow[] = [];
        for (const [idx, [channel, value]] of writes.entries()) {
          const [type, bytes] = await this.lists.dumpsTyped(value);
          const special = WRITES_IDX_MAP[channel];
          rows.push({ idx: special || idx, channel, type, value: bytes, special: special !== undefined });
        }
        return rows.length === 0 ? undefined : { ...(fence ? { fence } : {}), threadId, ns, checkpointId, taskId, taskPath: taskPath ?? "", rows };
      })();
      return this.parked.park(threadId, ns, checkpointId, fence, prepared);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // ---- thread operations ---------------------------------------------------------------

  /** Removes every checkpoint, delta and pending write of the thread (all namespaces). */
  override async deleteThread(threadId: string): Promise<void> {
    await this.ready;
    await this.parked.flushAll();
    this.heads.forgetThread(threadId);
    await this.write({
      statements: [CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE].map((table) => ({ sql: `DELETE FROM ${table} WHERE thread_id = ?`, params: [threadId] })),
    });
  }

  /**
   * Copies every checkpoint, delta and pending write of `from` to the empty thread `to`
   * (ids, parents and metadata unchanged). `to` must have no checkpoints:
   * `KEEL_ERR_CHECKPOINT_THREAD_EXISTS` otherwise.
   */
  async copyThread(from: string, to: string): Promise<void> {
    await this.ready;
    await this.parked.flushAll();
    const exists = await this.executor.all(`SELECT 1 AS one FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? LIMIT 1`, [to]);
    if (exists.length > 0) throw new KeelError("KEEL_ERR_CHECKPOINT_THREAD_EXISTS", `cannot copy checkpoints of thread ${from} to ${to}: ${to} already has checkpoints`);
    const empty = `NOT EXISTS (SELECT 1 FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ?)`;
    const copy = (table: string, columns: string): SqlStatement => ({
      sql: `INSERT INTO ${table} (thread_id, ${columns}) SELECT ?, ${columns} FROM ${table} WHERE thread_id = ? AND ${empty}`,
      params: [to, from, to],
    });
    this.heads.forgetThread(to);
    await this.write({
      statements: [
        copy(VALUES_TABLE, "checkpoint_ns, checkpoint_id, snapshot_id, channel, op, from_index, keep_until, type, value, run_id, epoch"),
        copy(WRITES_TABLE, "checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path, run_id, epoch"),
        copy(CHECKPOINTS_TABLE, "checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id, depth, type, header, metadata, run_id, epoch"),
      ],
    });
  }

  /**
   * Keeps the newest `keepLatest` checkpoints of each namespace of the thread (by id) with
   * their pending writes and deletes the rest. A kept checkpoint whose delta chain ran
   * through a deleted one becomes (or is re-based on) a new snapshot, so every kept
   * checkpoint reads back exactly as before. Its `parentConfig` still names the deleted
   * parent, as LangGraph's own pruning leaves it.
   */
  async pruneThread(threadId: string, keepLatest: number): Promise<void> {
    await this.ready;
    if (!Number.isInteger(keepLatest) || keepLatest < 1) throw new RangeError(`keepLatest must be a positive integer, got ${keepLatest}`);
    await this.parked.flushAll();
    const rows = (await this.executor.all(
      `SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, snapshot_id FROM ${CHECKPOINTS_TABLE} WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id DESC`,
      [threadId],
    )) as Array<{ checkpoint_ns: string; checkpoint_id: string; parent_checkpoint_id: string | null; snapshot_id: string }>;
    const statements: SqlStatement[] = [];
    const byNs = new Map<string, typeof rows>();
    for (const row of rows) byNs.set(row.checkpoint_ns, [...(byNs.get(row.checkpoint_ns) ?? []), row]);
    for (const [ns, list] of byNs) {
      const kept = list.slice(0, keepLatest);
      const dropped = list.slice(keepLatest);
      if (dropped.length === 0) continue;
      const droppedIds = new Set(dropped.map((r) => r.checkpoint_id));
      const links = new Map<string, HeaderLink>(list.map((r) => [r.checkpoint_id, { checkpointId: r.checkpoint_id, parentId: r.parent_checkpoint_id, snapshotId: r.snapshot_id }]));
      const rebase = new Map<string, { root: string; depth: number }>();
      for (const row of kept) {
        const chain = chainToSnapshot(links, row.checkpoint_id);
        const cut = chain.findIndex((id, i) => i + 1 < chain.length && droppedIds.has(chain[i + 1]!));
        if (cut >= 0) rebase.set(row.checkpoint_id, { root: chain[cut]!, depth: cut });
      }
      const roots = new Set([...rebase.values()].map((r) => r.root));
      for (const root of roots) {
        const values = await this.reads.valuesOf({ thread_id: threadId, checkpoint_ns: ns, checkpoint_id: root, snapshot_id: links.get(root)!.snapshotId });
        statements.push({ sql: `DELETE FROM ${VALUES_TABLE} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, params: [threadId, ns, root] });
        for (const [channel, value] of Object.entries(values)) {
          if (value === undefined) continue;
          const [type, bytes] = await this.serde.dumpsTyped(value);
          statements.push({ sql: `INSERT INTO ${VALUE_INSERT_SQL} VALUES (${placeholders(12)})`, params: [threadId, ns, root, root, channel, "set", null, null, type, bytes, null, null] });
        }
      }
      for (const [id, { root, depth }] of rebase) {
        statements.push({ sql: `UPDATE ${CHECKPOINTS_TABLE} SET snapshot_id = ?, depth = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, params: [root, depth, threadId, ns, id] });
        statements.push({ sql: `UPDATE ${VALUES_TABLE} SET snapshot_id = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, params: [root, threadId, ns, id] });
      }
      for (const part of chunks([...droppedIds])) {
        for (const table of [CHECKPOINTS_TABLE, VALUES_TABLE, WRITES_TABLE]) {
          statements.push({ sql: `DELETE FROM ${table} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN (${placeholders(part.length)})`, params: [threadId, ns, ...part] });
        }
      }
    }
    this.heads.forgetThread(threadId);
    if (statements.length > 0) await this.write({ statements });
  }

  /** Releases the executor (and the handle or pool when the saver opened it). */
  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.parked.flushAll();
    this.heads.clear();
    await this.executor.close();
  }

  /** A value of the checkpointer's key/value table (e.g. migration markers). */
  async readMeta(key: string): Promise<string | undefined> {
    await this.created;
    const rows = await this.executor.all(`SELECT value FROM ${META_TABLE} WHERE key = ?`, [key]);
    return rows[0] ? String(rows[0].value) : undefined;
  }

  async writeMeta(key: string, value: string): Promise<void> {
    await this.write({ statements: [{ sql: `INSERT INTO ${META_TABLE} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, params: [key, value] }] });
  }

  // ---- internals -----------------------------------------------------------------------

  private async write(batch: WriteBatch): Promise<void> {
    await this.executor.write(batch, (reads) => this.judge(batch.fence).check(reads));
  }

  /** Refuses a write whose fence's lease is not held (KEEL_ERR_LEASE_FENCED) or whose guard found nothing (StaleHead). */
  private judge(fence: LeaseFence | undefined): WriteJudge {
    const nowIso = () => new Date((fence?.now ?? this.now)()).toISOString();
    return {
      check: ({ lease, guard }) => {
        if (fence) assertLeaseHeld(fence, lease, nowIso());
        if (!guard) throw new StaleHead();
      },
      rule: () => ({ nowIso: nowIso(), enforce: !fencingDisabled() }),
    };
  }

}

const VALUE_INSERT_SQL = `${VALUES_TABLE} (${VALUE_INSERT})`;

/** The parent a delta was computed against is no longer in the database as cached (another process pruned or deleted it). */
class StaleHead extends Error {}
