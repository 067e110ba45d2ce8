/** The checks before `admitRun`: the thread's owner, the per-user run limit, the new record. */
import { KeelError } from "../errors.js";
import type { Clock } from "../loop/run-scope.js";
import type { MultitaskStrategy, RunRecord, RunRequest, RunStore, ThreadRecord } from "./types.js";

/** The thread, when it exists and belongs to `user`; others get the same 404 as a missing one. */
export async function ownedThread(store: RunStore, threadId: string, user: string): Promise<ThreadRecord> {
  const thread = await store.getThread(threadId);
  if (!thread || thread.owner !== user) throw new KeelError("KEEL_ERR_THREAD_NOT_FOUND", `thread \`${threadId}\` does not exist`);
  return thread;
}

const THREAD_PAGE = 200;

/**
 * Pending and running runs across the user's threads, through the RunStore port as it is
 * (a page of threads at a time); a store-side count would be one query.
 */
export async function countActiveRuns(store: RunStore, user: string): Promise<number> {
  let count = 0;
  for (let offset = 0; ; offset += THREAD_PAGE) {
    const threads = await store.searchThreads({ owner: user, limit: THREAD_PAGE, offset });
    for (const thread of threads) count += (await store.activeRuns(thread.threadId)).length;
    if (threads.length < THREAD_PAGE) return count;
  }
}

/**
 * KEEL_ERR_RUN_LIMIT when admitting one more run would exceed `limit`. `leaving` runs are
 * about to be cancelled by this admission (interrupt/rollback) and do not count. The
 * count and the admission are separate steps, so concurrent requests can overshoot by
 * the number of requests racing: the limit protects capacity, not correctness.
 */
export async function assertUnderRunLimit(store: RunStore, user: string, limit: number, leaving: number): Promise<void> {
  const active = (await countActiveRuns(store, user)) - leaving;
  if (active >= limit) {
    throw new KeelError("KEEL_ERR_RUN_LIMIT", `user \`${user}\` already has ${active} pending or running runs (limit ${limit}); wait for one to finish or cancel one`);
  }
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
