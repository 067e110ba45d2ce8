import type { LeaseHold, LeaseKeeperPort } from "../../kernel/ports/agents.js";

/** ISO time `ms` after `iso`. */
export function isoPlus(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}

/**
 * The `lease-keeper` port: live leases in this process. A lease stays alive while its child
 * makes progress (every finished model or tool call is a heartbeat); it is checked every
 * `heartbeatMs` (at most the TTL) and expires after `leaseTtlMs` without one. Expiry grows
 * the epoch, so the holder's later terminal write (`release()`) is refused as stale.
 *
 * @example
 * const hold = keeper.hold(lease, () => child.abort(), ctx.now);
 * hold.beat();                  // on every child step
 * if (!hold.release()) { ... }  // expired meanwhile: record lease_expired, not the child's result
 */
export function createLeaseKeeper(options: { leaseTtlMs: number; heartbeatMs: number }): LeaseKeeperPort {
  const ttlMs = options.leaseTtlMs;
  const checkEvery = Math.max(1, Math.min(options.heartbeatMs, ttlMs));
  return {
    ttlMs,
    hold(lease, onExpire, now): LeaseHold {
      let epoch = lease.epoch;
      let expired = false;
      let released = false;
      let lastBeat = performance.now();
      let expiresAt = isoPlus(now(), ttlMs);
      const timer = setInterval(() => {
        if (released || expired || performance.now() - lastBeat < ttlMs) return;
        expired = true;
        epoch += 1;
        clearInterval(timer);
        onExpire();
      }, checkEvery);
      timer.unref?.();
      return {
        beat() {
          if (released || expired) return;
          lastBeat = performance.now();
          expiresAt = isoPlus(now(), ttlMs);
        },
        release() {
          released = true;
          clearInterval(timer);
          return !expired;
        },
        get expired() {
          return expired;
        },
        get epoch() {
          return epoch;
        },
        get expiresAt() {
          return expiresAt;
        },
      };
    },
  };
}
