/**
 * A run from an earlier checkpoint of its thread (LangGraph's `checkpoint_id`: a fork):
 * before the run starts, that checkpoint is written again as the thread's newest one
 * (checkpoint-rollback.ts `writeAsHead`, LangGraph's own `__copy__` fork), so the run
 * continues from exactly its values while the history stays intact. Only the checkpoint
 * is forked: the thread's workspace files stay as they are, and when the stack has a
 * workspace (a `rollback` port) the fork's metadata says so (`keel_workspace:
 * "not_restored"`). Root namespace only.
 *
 * Which checkpoints fork. Every checkpoint of a finished step: one without pending writes,
 * and one whose pending writes are those of the step that followed it — every non-final
 * checkpoint of a run's history, since LangGraph files a step's writes under the checkpoint
 * the step started from and then writes the next checkpoint as its child. The copy leaves
 * those writes behind, as LangGraph does when a run names a `checkpoint_id`: it replays
 * (`skipDoneTasks` is off), so the steps after the checkpoint run again — with new input
 * its next tasks are discarded, with none they are executed anew — and the old writes are
 * never applied. Refused (`unforkable`): pending writes and no child, a step that has not
 * finished (still running, or stopped mid-step: failed, paused for input, cancelled), whose
 * writes are not settled; and a format a copy cannot carry (delta channels, before format 4).
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph";
import { copyCheckpoint } from "@langchain/langgraph-checkpoint";
import { KeelError } from "../errors.js";
import { hasCopyableFormat, writeAsHead } from "./checkpoint-rollback.js";

/** `forkable`; `missing` (no such checkpoint on the thread); `unforkable` (pending writes of a step that has not finished, delta channels, an old format). */
export type CheckpointForkStatus = "forkable" | "missing" | "unforkable";

function rootConfig(threadId: string, checkpointId?: string) {
  return { configurable: { thread_id: threadId, checkpoint_ns: "", ...(checkpointId !== undefined ? { checkpoint_id: checkpointId } : {}) } };
}

/**
 * Whether a later checkpoint of the thread is the child of `checkpointId` (the step that
 * started from it finished). Reads the thread's checkpoints newest first (the savers' order)
 * down to that one only.
 */
async function stepFinished(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string): Promise<boolean> {
  for await (const tuple of checkpointer.list(rootConfig(threadId))) {
    if (tuple.parentConfig?.configurable?.checkpoint_id === checkpointId) return true;
    if (tuple.checkpoint.id === checkpointId) return false;
  }
  return false;
}

async function forkable(checkpointer: BaseCheckpointSaver, threadId: string, saved: CheckpointTuple): Promise<boolean> {
  if (!hasCopyableFormat(saved)) return false;
  return (saved.pendingWrites?.length ?? 0) === 0 || (await stepFinished(checkpointer, threadId, saved.checkpoint.id));
}

async function savedCheckpoint(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string): Promise<CheckpointTuple | undefined> {
  const saved = await checkpointer.getTuple(rootConfig(threadId, checkpointId));
  return saved && saved.checkpoint.id === checkpointId ? saved : undefined;
}

export async function checkpointForkStatus(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string): Promise<CheckpointForkStatus> {
  const saved = await savedCheckpoint(checkpointer, threadId, checkpointId);
  if (!saved) return "missing";
  return (await forkable(checkpointer, threadId, saved)) ? "forkable" : "unforkable";
}

/** What a fork's metadata says about the thread's workspace files when the stack has a workspace: they were not rewound with the checkpoint. */
export const WORKSPACE_NOT_RESTORED = { keel_workspace: "not_restored" } as const;

/**
 * Make checkpoint `checkpointId` the thread's head again; KEEL_ERR_RUN_FORK_FAILED when it is
 * missing or cannot be forked (see above). `workspace`: the stack keeps files per thread (the
 * fork is marked `keel_workspace: "not_restored"`).
 */
export async function forkFromCheckpoint(checkpointer: BaseCheckpointSaver, threadId: string, checkpointId: string, options: { workspace?: boolean } = {}): Promise<void> {
  const saved = await savedCheckpoint(checkpointer, threadId, checkpointId);
  if (!saved) throw new KeelError("KEEL_ERR_RUN_FORK_FAILED", `thread \`${threadId}\` has no checkpoint \`${checkpointId}\` to run from`);
  if (!(await forkable(checkpointer, threadId, saved))) {
    throw new KeelError("KEEL_ERR_RUN_FORK_FAILED", `checkpoint \`${checkpointId}\` of thread \`${threadId}\` cannot be run from: it has pending writes of a step that has not finished (or an older format); pick a checkpoint whose step finished, e.g. any one before it`);
  }
  await writeAsHead(checkpointer, threadId, copyCheckpoint(saved.checkpoint), saved.metadata, { keelForkOf: checkpointId, ...(options.workspace ? WORKSPACE_NOT_RESTORED : {}) });
}
