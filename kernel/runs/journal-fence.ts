/**
 * The check a fenced journal write makes in its transaction (every RunStore makes the same
 * one): the run is `running`, held by the fence's owner at its epoch, its lease unexpired
 * at the writer's clock. Otherwise `KEEL_ERR_LEASE_FENCED` and nothing is written.
 */
import { leaseFenced } from "../ports/fence.js";
import type { JournalFence } from "./types.js";

/** What a store read of the run's lease row: absent when there is no such run. */
export interface LeaseRowView {
  status: string;
  owner?: string | null;
  epoch: number;
  leaseExpiresAt?: string | null;
}

/** Why the lease row does not hold the fence, or undefined when it does. */
export function journalFenceRefusal(row: LeaseRowView | undefined, fence: JournalFence): string | undefined {
  if (row === undefined) return "the run store holds no such run";
  if (Number(row.epoch) !== fence.epoch) return `the lease is at epoch ${row.epoch}`;
  if (row.owner !== fence.owner) return `the run is held by ${row.owner ?? "nobody"}`;
  if (row.status !== "running") return `the run is ${row.status}`;
  if (!row.leaseExpiresAt || row.leaseExpiresAt <= new Date(fence.now).toISOString()) return `the lease expired at ${row.leaseExpiresAt ?? "(none)"}`;
  return undefined;
}

/** Throws `KEEL_ERR_LEASE_FENCED` unless the row holds the fence. */
export function assertJournalFence(runId: string, row: LeaseRowView | undefined, fence: JournalFence, count: number): void {
  const why = journalFenceRefusal(row, fence);
  if (why !== undefined) throw leaseFenced(runId, fence.epoch, `a journal write of ${count} entries`, why);
}
