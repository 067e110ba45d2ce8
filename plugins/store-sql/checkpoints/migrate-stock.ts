/**
 * One-time migration of a LangGraph stock checkpoint store (SqliteSaver's
 * `checkpoints.db`, PostgresSaver's `checkpoints` / `checkpoint_blobs` /
 * `checkpoint_writes` tables) into Keel's checkpointer. Every checkpoint is read through
 * the stock saver itself (so its format, blobs and pre-v4 pending sends are decoded as
 * LangGraph decodes them) and written with its id, parent, metadata and pending writes,
 * thread by thread in id order (a parent before its children). Values equal to the
 * previous checkpoint's are matched first, so the migrated history is stored as deltas
 * too. A marker in `keel_ckpt_meta` records the migration; the stock store is left as it
 * was. Re-running is harmless: each checkpoint is written under its own id again.
 */
import type { BaseCheckpointSaver, CheckpointPendingWrite, PendingWrite, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { KeelCheckpointSaver } from "./keel-saver.js";

export interface StockCheckpointId {
  threadId: string;
  ns: string;
  checkpointId: string;
}

/** Imports `ids` (in that order) from `source` unless `marker` is already recorded; returns how many checkpoints were imported. */
export async function migrateStockCheckpoints(source: BaseCheckpointSaver, ids: readonly StockCheckpointId[], target: KeelCheckpointSaver, marker: string): Promise<number> {
  if ((await target.readMeta(marker)) !== undefined) return 0;
  let previous: { key: string; values: Record<string, unknown> } | undefined;
  let imported = 0;
  for (const { threadId, ns, checkpointId } of ids) {
    const tuple = await source.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } });
    if (!tuple) continue;
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    const key = JSON.stringify([threadId, ns, parentId]);
    const values = previous?.key === key ? await alignValues(target.serde, previous.values, tuple.checkpoint.channel_values) : tuple.checkpoint.channel_values;
    const checkpoint = { ...tuple.checkpoint, channel_values: values };
    await target.putNow({ configurable: { thread_id: threadId, checkpoint_ns: ns, ...(parentId ? { checkpoint_id: parentId } : {}) } }, checkpoint, tuple.metadata ?? ({} as never));
    for (const [taskId, writes] of byTask(tuple.pendingWrites ?? [])) {
      await target.putWritesNow({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } }, writes, taskId, "");
    }
    previous = { key: JSON.stringify([threadId, ns, checkpointId]), values };
    imported += 1;
  }
  await target.writeMeta(marker, JSON.stringify({ checkpoints: imported, at: new Date().toISOString() }));
  return imported;
}

/** The stock savers store writes without their task path; each task's writes keep their order. */
function byTask(writes: readonly CheckpointPendingWrite[]): Map<string, PendingWrite[]> {
  const out = new Map<string, PendingWrite[]>();
  for (const [taskId, channel, value] of writes) out.set(taskId, [...(out.get(taskId) ?? []), [channel, value]]);
  return out;
}

/**
 * Values read back separately are separate objects even where unchanged; reuse the
 * previous checkpoint's objects wherever they serialize alike (with the saver's serde),
 * so that the saver's identity diff finds the appends.
 */
async function alignValues(serde: SerializerProtocol, before: Record<string, unknown>, after: Record<string, unknown>): Promise<Record<string, unknown>> {
  const same = async (a: unknown, b: unknown) => (await serialized(serde, a)) === (await serialized(serde, b));
  const out: Record<string, unknown> = {};
  for (const [channel, value] of Object.entries(after)) {
    const old = before[channel];
    if (Array.isArray(old) && Array.isArray(value)) {
      const list = [...value];
      for (let i = 0; i < Math.min(old.length, list.length) && (await same(old[i], list[i])); i += 1) list[i] = old[i];
      out[channel] = list.length === old.length && list.every((v, i) => v === old[i]) ? old : list;
    } else out[channel] = old !== undefined && (await same(old, value)) ? old : value;
  }
  return out;
}

const texts = new WeakMap<object, string>();
async function serialized(serde: SerializerProtocol, value: unknown): Promise<string> {
  const cached = typeof value === "object" && value !== null ? texts.get(value) : undefined;
  if (cached !== undefined) return cached;
  const [type, bytes] = await serde.dumpsTyped(value);
  const text = `${type}:${Buffer.from(bytes).toString("base64")}`;
  if (typeof value === "object" && value !== null) texts.set(value, text);
  return text;
}
