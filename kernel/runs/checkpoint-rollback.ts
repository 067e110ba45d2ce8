/**
 * A rollback point for a thread's LangGraph checkpoints, taken through the checkpointer
 * (the runtime does not expose its graph).
 *
 * Restore = LangGraph's own fork (`updateState(config, undefined, "__copy__")`): the
 * captured checkpoint is written again as the thread's newest checkpoint, so the next
 * run continues from exactly the pre-run values while history stays intact. One
 * difference, and why: a LangGraph fork keeps the copied channel versions, and the next
 * run then reuses version numbers the cancelled run already wrote. Savers that store a
 * blob per (channel, version) and skip existing ones (PostgresSaver: `ON CONFLICT DO
 * NOTHING`) would hand back the cancelled run's values. So every channel of the copy
 * gets one fresh version above anything the thread used, and `versions_seen` moves along
 * (a node that had seen a channel still has; one that had not still has not), which
 * keeps which nodes would trigger unchanged.
 *
 * When that cannot be done faithfully the capture returns null (rollback unavailable,
 * never a partial restore): the checkpoint has pending writes (an interrupted superstep
 * a copy would drop), uses delta channels (values rebuilt from ancestors), or predates
 * checkpoint format 4.
 */
import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata, CheckpointTuple } from "@langchain/langgraph";
// Declared by @langchain/langgraph and a peer of the SQLite/Postgres savers: the same
// module instance LangGraph uses, so fresh checkpoint ids stay monotonic in this process.
import { copyCheckpoint, maxChannelVersion, uuid6 } from "@langchain/langgraph-checkpoint";

import type { StagedRollback } from "../ports/rollback.js";

export type { StagedRollback };

type Version = number | string;

const DELTA_METADATA_KEYS = ["delta_writes_versioned", "counters_since_delta_snapshot"];

export async function captureCheckpointRollback(checkpointer: BaseCheckpointSaver, threadId: string): Promise<StagedRollback | null> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const saved = await checkpointer.getTuple(config);
  if (!saved) {
    // The thread had no state: restoring is removing what the run created.
    return staged(() => checkpointer.deleteThread(threadId));
  }
  if (!copiesFaithfully(saved)) return null;
  const snapshot = copyCheckpoint(saved.checkpoint);
  const metadata = saved.metadata;
  return staged(() => writeAsHead(checkpointer, threadId, snapshot, metadata, { keelRollbackOf: snapshot.id }));
}

/**
 * Write `snapshot` again as the thread's newest checkpoint (LangGraph's `__copy__` fork),
 * every channel at one fresh version above anything the thread used (see above); `mark`
 * goes into the new checkpoint's metadata. Shared by rollback and by a run from an earlier
 * checkpoint (checkpoint-fork.ts).
 */
export async function writeAsHead(checkpointer: BaseCheckpointSaver, threadId: string, snapshot: Checkpoint, metadata: CheckpointMetadata | undefined, mark: Record<string, unknown>): Promise<void> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const head = await checkpointer.getTuple(config);
  const nextVersion = checkpointer.getNextVersion.bind(checkpointer) as (current: Version | undefined) => Version;
  const fresh = nextVersion(newestVersion([snapshot.channel_versions, head?.checkpoint.channel_versions ?? {}]));
  const restored = withFreshVersions(snapshot, fresh);
  const forkMetadata = { source: "fork", step: (metadata?.step ?? -1) + 1, parents: metadata?.parents ?? {}, ...mark } as CheckpointMetadata;
  await checkpointer.put(head?.config ?? config, restored, forkMetadata, restored.channel_versions);
}

/** Whether the checkpoint can be copied as the thread's head without losing anything. */
export function copiesFaithfully(saved: CheckpointTuple): boolean {
  return (saved.pendingWrites?.length ?? 0) === 0 && hasCopyableFormat(saved);
}

/** Whether the checkpoint's values are all in it: format 4 or later, no delta channels rebuilt from ancestors. */
export function hasCopyableFormat(saved: CheckpointTuple): boolean {
  if (saved.checkpoint.v < 4) return false;
  const metadata = (saved.metadata ?? {}) as Record<string, unknown>;
  return !DELTA_METADATA_KEYS.some((key) => metadata[key] !== undefined);
}

function newestVersion(maps: Array<Record<string, Version>>): Version | undefined {
  const all = maps.flatMap((m) => Object.values(m));
  return all.length === 0 ? undefined : maxChannelVersion(...all);
}

function withFreshVersions(snapshot: Checkpoint, fresh: Version): Checkpoint {
  const channelVersions = Object.fromEntries(Object.keys(snapshot.channel_versions).map((channel) => [channel, fresh]));
  const versionsSeen: Checkpoint["versions_seen"] = {};
  for (const [node, seen] of Object.entries(snapshot.versions_seen)) {
    versionsSeen[node] = Object.fromEntries(Object.entries(seen).map(([channel, version]) => [channel, version === snapshot.channel_versions[channel] ? fresh : version]));
  }
  return { ...snapshot, id: uuid6(-1), ts: new Date().toISOString(), channel_versions: channelVersions, versions_seen: versionsSeen };
}

/** A restore that is a single write: nothing to stage, committing is the write. */
function staged(write: () => Promise<void>): StagedRollback {
  return {
    prepare: async () => ({ commit: write, abort: async () => {} }),
    release: async () => {},
  };
}
