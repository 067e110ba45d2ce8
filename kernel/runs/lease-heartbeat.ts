/**
 * Keeps a run's lease alive: every `heartbeatMs` it extends the lease by `leaseTtlMs`
 * (store.heartbeat, CAS on owner+epoch). A refused heartbeat means someone else (the
 * reaper) ended the run: the lease is lost for good. A heartbeat that throws (store
 * unreachable) is retried on the next tick; the lease counts as lost once the last
 * extension has run out, since the reaper may then take the run at any moment.
 */
import type { ManagerContext } from "./manager-context.js";
import type { RunRecord } from "./types.js";

export class LeaseHeartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private validUntil: number;
  private beating = false;
  private lost = false;

  constructor(
    private readonly ctx: ManagerContext,
    private readonly run: RunRecord,
    private readonly onLost: () => void,
    private readonly onBeat: () => void,
  ) {
    this.validUntil = run.leaseExpiresAt ? Date.parse(run.leaseExpiresAt) : ctx.clock.now() + ctx.leaseTtlMs;
  }

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.ctx.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Extend the lease now; false when it is lost (also when the store cannot be reached). */
  async renew(): Promise<boolean> {
    if (this.lost) return false;
    const now = this.ctx.clock.now();
    let held: boolean;
    try {
      held = await this.ctx.store.heartbeat(this.run.runId, this.ctx.workerId, this.run.epoch, this.ctx.leaseTtlMs, now);
    } catch (error) {
      this.ctx.log(`run ${this.run.runId}: lease heartbeat failed`, error);
      if (this.ctx.clock.now() >= this.validUntil) this.lose();
      return false;
    }
    if (held) this.validUntil = now + this.ctx.leaseTtlMs;
    else this.lose();
    return held;
  }

  private async beat(): Promise<void> {
    if (this.beating || this.lost) return;
    this.beating = true;
    try {
      if (await this.renew()) this.onBeat();
    } finally {
      this.beating = false;
    }
  }

  private lose(): void {
    if (this.lost) return;
    this.lost = true;
    // Refused, or unrenewable past its last extension: either way the owner saw its lease expire.
    this.ctx.observer.leaseExpired("owner");
    this.stop();
    this.onLost();
  }
}
