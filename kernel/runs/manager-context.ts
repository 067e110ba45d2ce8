/** What the RunManager's parts (admission, execution, cancellation, reaper) share. */
import type { Clock } from "../loop/run-scope.js";
import type { RunExecutor } from "./executor.js";
import type { BackgroundLog } from "./run-output.js";
import type { RunRecord, RunRecordStatus, RunStore, StreamBridge, ThreadStatus } from "./types.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { RunServiceObserver } from "./run-service-observer.js";
import type { RunFeedPublisher } from "./run-feed.js";

export interface ManagerContext {
  readonly store: RunStore;
  readonly bridge: StreamBridge;
  /** The run-status feed's publisher (run-feed.ts); `bridge` is already tapped by it. */
  readonly feed: RunFeedPublisher;
  readonly executor: RunExecutor;
  readonly workerId: string;
  readonly leaseTtlMs: number;
  readonly heartbeatMs: number;
  /** The lease is lost locally this long before it expires (lease-heartbeat.ts). */
  readonly leaseMarginMs: number;
  readonly journalBatchSize: number;
  readonly clock: Clock;
  readonly log: BackgroundLog;
  /** Guarded: every method exists and never throws. */
  readonly observer: Required<RunServiceObserver>;
}

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();

export function isTerminal(status: RunRecordStatus): boolean {
  return status !== "pending" && status !== "running";
}

/**
 * The thread's status once a run of it ended with `outcome`, as LangGraph's server sets it:
 * `error` when the run failed or timed out; otherwise `busy` while the thread has another
 * pending or running run, else `idle` — a cancelled run included; `interrupted` when the run
 * paused for input (stop reason `awaiting_input`: the thread has `next` nodes, as LangGraph's
 * server marks a thread whose checkpoint has a next step).
 */
export function threadStatusAfter(outcome: StatusV2Payload, othersActive: boolean): ThreadStatus {
  if (outcome.status === "failed" || outcome.status === "timed_out") return "error";
  if (outcome.status === "partial" && outcome.stopReasons.some((r) => r.reason === "awaiting_input")) return "interrupted";
  return othersActive ? "busy" : "idle";
}

/** Set the thread's status after a run of it ended (`threadStatusAfter`, reading its other active runs). */
export async function settleThreadStatus(ctx: ManagerContext, threadId: string, runId: string, outcome: StatusV2Payload): Promise<void> {
  const others = (await ctx.store.activeRuns(threadId)).some((run) => run.runId !== runId);
  await ctx.store.updateThread(threadId, { status: threadStatusAfter(outcome, others) }, isoNow(ctx.clock));
}

/**
 * Run `runId` was admitted pending: the thread is busy. Never fatal (the admission stands;
 * the run's start sets it again). A run that already ended meanwhile (another worker claimed
 * and finished it first) settled the thread before this write: it is settled again.
 */
export async function markThreadBusy(ctx: ManagerContext, threadId: string, runId: string): Promise<void> {
  try {
    await ctx.store.updateThread(threadId, { status: "busy" }, isoNow(ctx.clock));
    const run = await ctx.store.getRun(runId);
    if (run?.outcome && isTerminal(run.status)) await settleThreadStatus(ctx, threadId, runId, run.outcome);
  } catch (error) {
    ctx.log(`thread ${threadId}: marking it busy after an admission failed`, error);
  }
}

/**
 * `end` for a run that never started (cancelled while pending): `metadata` first, as on
 * every stream, with `attempt: 0` (no worker ever claimed it), then the commit marker.
 */
export async function endNeverStartedStream(ctx: ManagerContext, run: RunRecord): Promise<void> {
  try {
    await ctx.bridge.publish(run.runId, "metadata", { run_id: run.runId, thread_id: run.threadId, attempt: 0 }, { epoch: run.epoch });
    await ctx.bridge.end(run.runId, { epoch: run.epoch });
  } catch (error) {
    ctx.log(`run ${run.runId}: ending the stream of a run that never started failed`, error);
  }
}
