/** Admission helpers: the thread's owner, the new record, and the per-user limit error the stores raise. */
import { KeelError } from "../errors.js";
import type { Clock } from "../loop/run-scope.js";
import type { AdmissionReplace, AdmissionStart, MultitaskStrategy, RunRecord, RunRequest, RunStore, ThreadRecord } from "./types.js";

/** The thread, when it exists and belongs to `user`; others get the same 404 as a missing one. */
export async function ownedThread(store: RunStore, threadId: string, user: string): Promise<ThreadRecord> {
  const thread = await store.getThread(threadId);
  if (!thread || thread.owner !== user) throw new KeelError("KEEL_ERR_THREAD_NOT_FOUND", `thread \`${threadId}\` does not exist`);
  return thread;
}

export function newRunRecord(input: { runId: string; threadId: string; user: string; request: RunRequest; strategy: MultitaskStrategy; clock: Clock }): RunRecord {
  const now = new Date(input.clock.now()).toISOString();
  return {
    runId: input.runId,
    threadId: input.threadId,
    assistantId: input.request.assistantId,
    status: "pending",
    multitaskStrategy: input.strategy,
    epoch: 0,
    createdAt: now,
    updatedAt: now,
    user: input.user,
    request: input.request,
  };
}

/** KEEL_ERR_RUN_LIMIT for a user at the limit (thrown by the stores inside admission). */
export function runLimitError(user: string, active: number, limit: number): KeelError {
  return new KeelError("KEEL_ERR_RUN_LIMIT", `user \`${user}\` already has ${active} pending or running runs (limit ${limit}); wait for one to finish or cancel one`);
}

/** What the stores write to start an admitted run at once (`AdmissionStart`), when it may be: else null. */
export function startedAtAdmission(run: RunRecord, active: readonly RunRecord[], start: AdmissionStart | undefined): Pick<RunRecord, "status" | "owner" | "epoch" | "leaseExpiresAt" | "updatedAt"> | null {
  if (!start || active.length > 0 || run.dueAt !== undefined) return null;
  return {
    status: "running",
    owner: start.owner,
    epoch: run.epoch + 1,
    leaseExpiresAt: new Date(start.now + start.ttlMs).toISOString(),
    updatedAt: new Date(start.now).toISOString(),
  };
}

/** Whether `run` replaces its thread's active runs (so they do not count against the user's limit). */
export function replacesActive(run: RunRecord): boolean {
  return run.multitaskStrategy === "interrupt" || run.multitaskStrategy === "rollback";
}

/** KEEL_ERR_STORE_THREAD_DELETED for an admission on a thread marked deleted (thrown by the stores inside admission). */
export function threadDeletedError(threadId: string): KeelError {
  return new KeelError("KEEL_ERR_STORE_THREAD_DELETED", `thread \`${threadId}\` is being deleted; it admits no new runs`);
}

/** Whether the admission supersedes the thread's pending runs in its transaction (`AdmissionReplace`). */
export function supersedesPending(run: RunRecord, replace: AdmissionReplace | undefined): replace is AdmissionReplace {
  return replace !== undefined && replacesActive(run);
}

/**
 * Under `rollback` with `AdmissionReplace`: the first running run not known to be
 * undoable (not in `rollbackChecked`), which refuses the admission before anything is
 * written; else null.
 */
export function uncheckedRollback(run: RunRecord, active: readonly RunRecord[], replace: AdmissionReplace | undefined): RunRecord | null {
  if (replace === undefined || run.multitaskStrategy !== "rollback") return null;
  return active.find((r) => r.status === "running" && !replace.rollbackChecked.includes(r.runId)) ?? null;
}
