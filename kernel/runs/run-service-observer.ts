/**
 * What the run service reports for metrics (the metrics plugin counts it; the kernel
 * imports no metrics library): runs reaching a terminal status on this worker, leases found
 * expired, and what the reaper did. Every method is optional and must not throw; the run
 * manager guards the calls, so a broken observer never breaks a run.
 */
import type { RunRecordStatus } from "./types.js";

/** Who wrote a run's terminal status: its own worker's finalization, a cancel of a pending run, or the reaper. */
export type RunEndedBy = "worker" | "cancel" | "reaper";

/**
 * What the reaper did: `sweep` (one pass), `reaped` (an expired run ended `failed`, `end`
 * published), `skipped` (its terminal write was refused: the owner renewed or finished in
 * time), `local_abort` (the reaped run was still executing on this worker, and was stopped).
 */
export type ReaperAction = "sweep" | "reaped" | "skipped" | "local_abort";

export interface RunServiceObserver {
  runEnded?(status: RunRecordStatus, by: RunEndedBy): void;
  /** A lease found expired: by the reaper's sweep, or by the owner whose heartbeat was refused. */
  leaseExpired?(seenBy: "reaper" | "owner"): void;
  reaperAction?(action: ReaperAction): void;
}

/** The observer with every call guarded (a missing method or a throwing one does nothing). */
export function guardServiceObserver(observer: RunServiceObserver | undefined): Required<RunServiceObserver> {
  const call = (fn: (() => void) | undefined) => {
    try {
      fn?.();
    } catch {
      // An observer's failure is never the run service's.
    }
  };
  return {
    runEnded: (status, by) => call(observer?.runEnded && (() => observer.runEnded!(status, by))),
    leaseExpired: (seenBy) => call(observer?.leaseExpired && (() => observer.leaseExpired!(seenBy))),
    reaperAction: (action) => call(observer?.reaperAction && (() => observer.reaperAction!(action))),
  };
}
