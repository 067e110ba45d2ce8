import type { DelegationV1 } from "../../contracts/delegation/v1.js";
import type { LeaseV1 } from "../../contracts/lease/v1.js";
import type { ChannelState } from "../../kernel/plugin/types.js";

export function leasesOf(state: ChannelState): LeaseV1[] {
  return Array.isArray(state.leases) ? (state.leases as LeaseV1[]) : [];
}

export function delegationsOf(state: ChannelState): DelegationV1[] | undefined {
  return Array.isArray(state.delegations) ? (state.delegations as DelegationV1[]) : undefined;
}

const TERMINAL = new Set(["succeeded", "partial", "failed", "cancelled", "timed_out"]);

/**
 * Active leases of this run whose delegation has ended: `expired` when it ended with
 * `lease_expired` (with the epoch and expiry it ended under), else `released`.
 */
export function endedLeases(leases: readonly LeaseV1[], delegations: readonly DelegationV1[] | undefined, runId: string): LeaseV1[] {
  if (!delegations) return [];
  const byId = new Map(delegations.map((d) => [d.id, d]));
  const out: LeaseV1[] = [];
  for (const lease of leases) {
    if (lease.state !== "active" || lease.runId !== runId) continue;
    const d = byId.get(lease.taskId);
    if (!d || !TERMINAL.has(d.status)) continue;
    const expired = (d.stopReasons ?? []).some((r) => r.reason === "lease_expired");
    out.push({
      ...lease,
      state: expired ? "expired" : "released",
      ...(d.lease && d.lease.leaseId === lease.leaseId ? { epoch: d.lease.epoch, expiresAt: d.lease.expiresAt } : {}),
    });
  }
  return out;
}

/** Active leases left by an earlier run of the thread: their children are gone. */
export function orphanedLeases(leases: readonly LeaseV1[], runId: string): LeaseV1[] {
  return leases.filter((l) => l.state === "active" && l.runId !== runId).map((l) => ({ ...l, state: "revoked" as const }));
}

/** Tokens the child of a finished lease used, from its delegation entry (an ended task without usage used none). */
export function usedTokens(delegations: readonly DelegationV1[] | undefined, lease: LeaseV1): number | undefined {
  const d = delegations?.find((entry) => entry.id === lease.taskId);
  if (!d || !TERMINAL.has(d.status)) return undefined;
  return d.usage?.totalTokens ?? 0;
}
