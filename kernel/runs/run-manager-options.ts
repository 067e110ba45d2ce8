/** RunManager options, their defaults (kernel/runs/README.md) and their checks. */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { KeelError } from "../errors.js";
import { fencingDisabled, UNSAFE_NO_FENCING_ENV } from "../ports/fence.js";
import { systemClock, type Clock } from "../loop/run-scope.js";
import type { RunExecutor } from "./executor.js";
import type { BackgroundLog } from "./run-output.js";
import type { RunStore, StreamBridge } from "./types.js";
import type { RunServiceObserver } from "./run-service-observer.js";
import { JOIN_RECHECK_MS } from "./join-run.js";
import { END_GRACE_MS, END_LOOKBACK_MS } from "./end-recovery.js";

export interface RunManagerOptions {
  store: RunStore;
  bridge: StreamBridge;
  executor: RunExecutor;
  /** This worker's identity in leases. Default: `<hostname>:<pid>:<random>`, unique per manager. */
  workerId?: string;
  /** How long a lease lasts without a heartbeat. Default 30 s. */
  leaseTtlMs?: number;
  /** How often a running run renews its lease (and flushes its journal). Default 10 s; must be below `leaseTtlMs`. */
  heartbeatMs?: number;
  /**
   * How long before its lease's expiry a worker stops trusting it (the local deadline is the
   * last extension + `leaseTtlMs` − this): the run is aborted and every write refused then,
   * before another worker's reaper can take the run. Default min(5 s, leaseTtlMs / 6, (leaseTtlMs − heartbeatMs) / 2);
   * `heartbeatMs + leaseMarginMs` must be below `leaseTtlMs`.
   */
  leaseMarginMs?: number;
  /** How often the reaper looks for expired leases. Default 5 s. */
  reaperMs?: number;
  /** How long `shutdown()` lets running runs finish before interrupting them. Default 10 s. */
  shutdownGraceMs?: number;
  /** The server maximum for a run's turn budget (requests are clamped to it). Default 500. */
  maxTurns?: number;
  /** Running + due pending runs one user may have across threads. Default 8. */
  maxActiveRunsPerUser?: number;
  /** Runs this worker executes at once; it claims no more from the queue (`keel serve --jobs`). Default 4. */
  jobs?: number;
  /** How often the claim queue is polled for due runs nobody started. Default 1 s. */
  claimPollMs?: number;
  /** Models a request may name (`config.configurable.model` or `context.model`). Default: any. */
  allowedModels?: readonly string[];
  /**
   * Keys a caller may not set in a run request: `runtimeOwnedKeys(compositions)` of the
   * served stacks (the channels their plugins declare `runtimeOwned`). Default: none.
   */
  runtimeOwnedKeys?: readonly string[];
  /** Journal entries buffered before a write to the store. Default 64. */
  journalBatchSize?: number;
  /** How often a join or a stream reader waiting for `end` reads the run's record (a terminal record answers a lost `end`). Default 2 000 ms. */
  joinRecheckMs?: number;
  /** How long after its terminal write a run's stream may lack `end` before the recovery sweep publishes it. Default 5 000 ms. */
  endGraceMs?: number;
  /** How far back a worker's first recovery sweep looks for finished runs lacking `end`. Default 15 min. */
  endLookbackMs?: number;
  /** Time for leases, records and journal entries. Default: the system clock. */
  clock?: Clock;
  /** Run ids. Default: random UUIDs. */
  newRunId?: () => string;
  /** Where background failures (a publish, a heartbeat, a flush) are reported. Default: a process warning. */
  log?: BackgroundLog;
  /** Told of terminal statuses, expired leases and reaper actions (e.g. the metrics plugin). Default: none. */
  observer?: RunServiceObserver;
}

export interface ResolvedOptions {
  workerId: string;
  leaseTtlMs: number;
  heartbeatMs: number;
  leaseMarginMs: number;
  reaperMs: number;
  shutdownGraceMs: number;
  maxTurns: number;
  maxActiveRunsPerUser: number;
  jobs: number;
  claimPollMs: number;
  allowedModels?: readonly string[];
  runtimeOwnedKeys: readonly string[];
  journalBatchSize: number;
  joinRecheckMs: number;
  endGraceMs: number;
  endLookbackMs: number;
  clock: Clock;
  newRunId: () => string;
  log: BackgroundLog;
}

const warn: BackgroundLog = (message, error) => {
  const why = error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`;
  process.emitWarning(`${message}${why}`, "KeelRunManager");
};

export function resolveOptions(options: RunManagerOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseTtlMs: options.leaseTtlMs ?? 30_000,
    heartbeatMs: options.heartbeatMs ?? 10_000,
    leaseMarginMs: options.leaseMarginMs ?? 0,
    reaperMs: options.reaperMs ?? 5_000,
    shutdownGraceMs: options.shutdownGraceMs ?? 10_000,
    maxTurns: options.maxTurns ?? 500,
    maxActiveRunsPerUser: options.maxActiveRunsPerUser ?? 8,
    jobs: options.jobs ?? 4,
    claimPollMs: options.claimPollMs ?? 1_000,
    ...(options.allowedModels ? { allowedModels: options.allowedModels } : {}),
    runtimeOwnedKeys: [...(options.runtimeOwnedKeys ?? [])],
    journalBatchSize: options.journalBatchSize ?? 64,
    joinRecheckMs: options.joinRecheckMs ?? JOIN_RECHECK_MS,
    endGraceMs: options.endGraceMs ?? END_GRACE_MS,
    endLookbackMs: options.endLookbackMs ?? END_LOOKBACK_MS,
    clock: options.clock ?? systemClock,
    newRunId: options.newRunId ?? randomUUID,
    log: options.log ?? warn,
  };
  for (const key of ["leaseTtlMs", "heartbeatMs", "reaperMs", "claimPollMs", "maxTurns", "maxActiveRunsPerUser", "journalBatchSize", "joinRecheckMs", "endGraceMs", "endLookbackMs"] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value <= 0) throw invalid(key, `must be a positive number, got \`${value}\``);
  }
  if (!Number.isInteger(resolved.jobs) || resolved.jobs < 1) throw invalid("jobs", `must be a positive integer, got \`${resolved.jobs}\``);
  if (!Number.isFinite(resolved.shutdownGraceMs) || resolved.shutdownGraceMs < 0) throw invalid("shutdownGraceMs", `must be ≥ 0, got \`${resolved.shutdownGraceMs}\``);
  if (resolved.heartbeatMs >= resolved.leaseTtlMs) {
    throw invalid("heartbeatMs", `(${resolved.heartbeatMs}) must be below \`leaseTtlMs\` (${resolved.leaseTtlMs}), or every lease expires between two heartbeats`);
  }
  if (options.leaseMarginMs === undefined) resolved.leaseMarginMs = defaultLeaseMargin(resolved.leaseTtlMs, resolved.heartbeatMs);
  else if (!Number.isFinite(resolved.leaseMarginMs) || resolved.leaseMarginMs < 0) throw invalid("leaseMarginMs", `must be ≥ 0, got \`${resolved.leaseMarginMs}\``);
  else if (resolved.heartbeatMs + resolved.leaseMarginMs >= resolved.leaseTtlMs) {
    throw invalid("leaseMarginMs", `(${resolved.leaseMarginMs}) plus \`heartbeatMs\` (${resolved.heartbeatMs}) must be below \`leaseTtlMs\` (${resolved.leaseTtlMs}), or every lease passes its local deadline between two heartbeats`);
  }
  // The test-only switch is refused at construction when it is set outside tests.
  if (fencingDisabled()) resolved.log(`${UNSAFE_NO_FENCING_ENV}=1: lease fencing is OFF (test-only); a worker that lost its lease goes on writing`);
  if (resolved.workerId.length === 0) throw invalid("workerId", "must not be empty");
  return resolved;
}

/**
 * min(5 s, TTL / 6, (TTL − heartbeat) / 2): 5 s with the 30 s / 10 s defaults; with short
 * test TTLs a sixth of the TTL, so a heartbeat delayed by a loaded machine is not a loss.
 */
export function defaultLeaseMargin(leaseTtlMs: number, heartbeatMs: number): number {
  return Math.max(0, Math.min(5_000, Math.floor(leaseTtlMs / 6), Math.floor((leaseTtlMs - heartbeatMs) / 2)));
}

function invalid(key: string, why: string): KeelError {
  return new KeelError("KEEL_ERR_CONFIG_INVALID", `RunManager option \`${key}\` ${why}`, { pointer: `/${key}` });
}
