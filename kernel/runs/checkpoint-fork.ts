/**
 * A run from an earlier checkpoint of its thread (LangGraph's `checkpoint_id`: a fork):
 * before the run starts, that checkpoint is written again as the thread's newest one
 * (checkpoint-rollback.ts `writeAsHead`, LangGraph's own `__copy__` fork), so the run
 * continues from exactly its values while the history stays intact. Only the checkpoint
 * is forked: the thread's workspace files stay as they are, and when the stack has a
 * workspace (a `rollback` port) the fork's metadata says so (`keel_workspace:
 * "not_restored"`). Root namespace only.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { copyCheckpoint } from "@langchain/langgraph-checkpoint";
import { KeelError } from "../errors.js";
import { copiesFaithfully, writeAsHead } from "./checkpoint-rollback.js";

/** `forkable`; `missing` (no such checkpoint on the thread); `unforkable` (pending writes of a step in progress, delta channels, an old format). */
export type CheckpointForkStatus = "forkable" | "missing" | "unforkable";

function tupleOf(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string) {
  return checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } });
}

export async function checkpointForkStatus(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string): Promise<CheckpointForkStatus> {
  const saved = await tupleOf(checkpointer, threadId, checkpointId);
  if (!saved || saved.checkpoint.id !== checkpointId) return "missing";
  return copiesFaithfully(saved) ? "forkable" : "unforkable";
}

/** What a fork's metadata says about the thread's workspace files when the stack has a workspace: they were not rewound with the checkpoint. */
export const WORKSPACE_NOT_RESTORED = { keel_workspace: "not_restored" } as const;

/**
 * Make checkpoint `checkpointId` the thread's head again; KEEL_ERR_RUN_FORK_FAILED when it is
 * missing or cannot be copied faithfully. `workspace`: the stack keeps files per thread (the
 * fork is marked `keel_workspace: "not_restored"`).
 */
export async function forkFromCheckpoint(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string, options: { workspace?: boolean } = {}): Promise<void> {
  const saved = await tupleOf(checkpointer, threadId, checkpointId);
  if (!saved || saved.checkpoint.id !== checkpointId) throw new KeelError("KEEL_ERR_RUN_FORK_FAILED", `thread \`${threadId}\` has no checkpoint \`${checkpointId}\` to run from`);
  if (!copiesFaithfully(saved)) throw new KeelError("KEEL_ERR_RUN_FORK_FAILED", `checkpoint \`${checkpointId}\` of thread \`${threadId}\` cannot be run from: it has pending writes of a step in progress (or an older format); pick a checkpoint where a run ended`);
  await writeAsHead(checkpointer, threadId, copyCheckpoint(saved.checkpoint), saved.metadata, { keelForkOf: checkpointId, ...(options.workspace ? WORKSPACE_NOT_RESTORED : {}) });
}
