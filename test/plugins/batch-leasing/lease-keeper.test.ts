import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLeaseKeeper, isoPlus } from "../../../plugins/batch-leasing/lease-keeper.js";
import { endedLeases, orphanedLeases, usedTokens } from "../../../plugins/batch-leasing/reconcile.js";
import type { LeaseV1 } from "../../../contracts/lease/v1.js";
import type { DelegationV1 } from "../../../contracts/delegation/v1.js";

const now = () => "2026-01-01T00:00:00.000Z";
const granted = { leaseId: "l1", runId: "r", taskId: "t1", epoch: 1 };

describe("lease keeper", () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] }));
  afterEach(() => void vi.useRealTimers());

  it("expires a lease after the TTL without a heartbeat: onExpire once, the epoch grows, release() is refused", () => {
    const keeper = createLeaseKeeper({ leaseTtlMs: 1000, heartbeatMs: 250 });
    const onExpire = vi.fn();
    const hold = keeper.hold(granted, onExpire, now);
    expect(hold.expiresAt).toBe("2026-01-01T00:00:01.000Z");
    vi.advanceTimersByTime(750);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(500);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(hold.expired).toBe(true);
    expect(hold.epoch).toBe(2);
    hold.beat(); // too late: an expired lease is not revived
    expect(hold.release()).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it("keeps a lease alive while heartbeats arrive, and release() then succeeds with the same epoch", () => {
    const keeper = createLeaseKeeper({ leaseTtlMs: 1000, heartbeatMs: 10_000 });
    const onExpire = vi.fn();
    const hold = keeper.hold(granted, onExpire, now);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(600);
      hold.beat();
    }
    expect(onExpire).not.toHaveBeenCalled();
    expect(hold.release()).toBe(true);
    expect(hold.epoch).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it("isoPlus adds milliseconds to an ISO time", () => {
    expect(isoPlus("2026-01-01T00:00:00.000Z", 60_000)).toBe("2026-01-01T00:01:00.000Z");
  });
});

function lease(taskId: string, runId = "r", state: LeaseV1["state"] = "active"): LeaseV1 {
  return { leaseId: `l-${taskId}`, runId, taskId, owner: `lead/${taskId}`, epoch: 1, tokenAllowance: 500_000, returnReserve: 75_000, grantedAt: now(), expiresAt: now(), state };
}
function entry(id: string, status: DelegationV1["status"], extra: Partial<DelegationV1> = {}): DelegationV1 {
  return { id, runId: "r", description: id, subagentType: "general-purpose", status, createdAt: now(), ...extra };
}

describe("lease reconciliation", () => {
  it("releases leases of ended delegations, expires those that ended with lease_expired, leaves running ones", () => {
    const leases = [lease("a"), lease("b"), lease("c"), lease("d", "other")];
    const delegations = [
      entry("a", "succeeded", { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }),
      entry("b", "failed", { stopReasons: [{ reason: "lease_expired", by: "batch-leasing" }], lease: { leaseId: "l-b", epoch: 2, expiresAt: "2026-01-01T00:00:05.000Z" } }),
      entry("c", "in_progress"),
    ];
    expect(endedLeases(leases, delegations, "r").map((l) => [l.taskId, l.state, l.epoch])).toEqual([["a", "released", 1], ["b", "expired", 2]]);
    expect(endedLeases(leases, undefined, "r")).toEqual([]);
    expect(usedTokens(delegations, leases[0]!)).toBe(2);
    expect(usedTokens(delegations, leases[2]!)).toBeUndefined();
  });

  it("revokes active leases an earlier run left behind", () => {
    expect(orphanedLeases([lease("a", "old"), lease("b", "r"), lease("c", "old", "released")], "r").map((l) => [l.taskId, l.state])).toEqual([["a", "revoked"]]);
  });
});
