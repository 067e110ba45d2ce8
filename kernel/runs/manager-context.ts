/** What the RunManager's parts (admission, execution, cancellation, reaper) share. */
import type { Clock } from "../loop/run-scope.js";
import type { RunExecutor } from "./executor.js";
import type { BackgroundLog } from "./run-output.js";
import type { RunRecord, RunRecordStatus, RunStore, StreamBridge, ThreadStatus } from "./types.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { RunServiceObserver } from "./run-service-observer.js";

export interface ManagerContext {
  readonly store: RunStore;
  readonly bridge: StreamBridge;
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

/** The thread's status once its run ended with `outcome`. */
export function threadStatusAfter(outcome: StatusV2Payload): ThreadStatus {
  if (outcome.status === "succeeded" || outcome.status === "partial") return "idle";
  if (outcome.status === "cancelled") return "interrupted";
  return "error";
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
