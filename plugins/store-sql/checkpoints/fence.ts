/**
 * The lease fence a write may carry: `config.configurable.keel_fence = { runId, epoch, now? }`
 * (`now`: the lease holder's clock in ms; the run service passes its own).
 * A fenced write is checked, in the same transaction as the write, against the run
 * store's lease row (`keel_runs`: `epoch`, `status`, `lease_expires_at`); a lease that is
 * no longer held by that epoch refuses the write with `KEEL_ERR_LEASE_FENCED` and nothing
 * is written. Every row records the run id and epoch it was written under.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { KeelError } from "../../../kernel/errors.js";
import { fencingDisabled } from "../../../kernel/ports/fence.js";
import { NO_RUN_STORE, type LeaseFence, type LeaseRow } from "./sql-executor.js";

export type { LeaseFence };

export const FENCE_KEY = "keel_fence";

/** The fence of a write's config, validated; undefined for an unfenced write. */
export function fenceOf(config: RunnableConfig): LeaseFence | undefined {
  const raw = (config.configurable as Record<string, unknown> | undefined)?.[FENCE_KEY];
  if (raw === undefined || raw === null) return undefined;
  const fence = raw as Partial<LeaseFence>;
  if (typeof fence.runId !== "string" || fence.runId === "" || typeof fence.epoch !== "number" || !Number.isInteger(fence.epoch)) {
    throw new KeelError("KEEL_ERR_LEASE_FENCED", `checkpoint write refused: \`configurable.${FENCE_KEY}\` must be { runId: string, epoch: integer }, got ${JSON.stringify(raw)}`);
  }
  return { runId: fence.runId, epoch: fence.epoch, ...(typeof fence.now === "function" ? { now: fence.now } : {}) };
}

/**
 * Throws `KEEL_ERR_LEASE_FENCED` unless the lease row shows the fence's run running under
 * the same epoch, unexpired at `nowIso`. A database without the run store's tables (the
 * saver used beside another run store) has nothing to check against: the write goes
 * ahead and records its epoch.
 */
export function assertLeaseHeld(fence: LeaseFence, lease: LeaseRow | undefined | typeof NO_RUN_STORE, nowIso: string): void {
  // Test-only switch (KEEL_TEST_UNSAFE_NO_FENCING): the row still records its epoch, nothing is refused.
  if (lease === NO_RUN_STORE || fencingDisabled()) return;
  const why =
    lease === undefined
      ? "the run store holds no such run"
      : Number(lease.epoch) !== fence.epoch
        ? `the lease is at epoch ${lease.epoch}`
        : lease.status !== "running"
          ? `the run is ${lease.status}`
          : lease.leaseExpiresAt === null || lease.leaseExpiresAt <= nowIso
            ? `the lease expired at ${lease.leaseExpiresAt ?? "(none)"}`
            : undefined;
  if (why === undefined) return;
  throw new KeelError("KEEL_ERR_LEASE_FENCED", `checkpoint write of run ${fence.runId} under epoch ${fence.epoch} refused: ${why}; nothing was written`);
}
