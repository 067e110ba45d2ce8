/**
 * Keeps a run's lease alive: every `heartbeatMs` it extends the lease by `leaseTtlMs`
 * (store.heartbeat, CAS on owner+epoch). A refused heartbeat means someone else (the
 * reaper) ended the run: the lease is lost for good.
 *
 * The lease is also lost **locally**, without asking anyone, at its local deadline:
 * `validUntil − leaseMarginMs`, where `validUntil` is the last successful extension's
 * start + `leaseTtlMs`. A heartbeat that fails (store unreachable), hangs, or never runs
 * (the process was paused) therefore stops the run before the reaper of another worker
 * can take it; the margin covers clock skew between workers and the time between a fence
 * check and the write it guards. The deadline is checked on every tick, by a timer armed
 * for it, and by every fence check (`fence.assertHeld`), so a process resumed after a
 * pause refuses its first write even before any timer fired.
 */
import { fencingDisabled, leaseFenced, type RunFence } from "../ports/fence.js";
import { journalFenceRefusal } from "./journal-fence.js";
import type { ManagerContext } from "./manager-context.js";
import type { RunRecord } from "./types.js";

export class LeaseHeartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private validUntil: number;
  private beating = false;
  private lost = false;
  private lostWhy = "";
  /** The run's fence, for its writes (journal, checkpoints, workspace, children). */
  readonly fence: RunFence;

  constructor(
    private readonly ctx: ManagerContext,
    private readonly run: RunRecord,
    private readonly onLost: () => void,
    private readonly onBeat: () => void,
  ) {
    this.validUntil = run.leaseExpiresAt ? Date.parse(run.leaseExpiresAt) : ctx.clock.now() + ctx.leaseTtlMs;
    const heartbeat = this;
    this.fence = {
      runId: run.runId,
      epoch: run.epoch,
      now: () => ctx.clock.now(),
      get held() {
        return heartbeat.stillHeld();
      },
      assertHeld(what = "a write") {
        if (heartbeat.stillHeld()) return;
        throw leaseFenced(run.runId, run.epoch, what, heartbeat.lostWhy);
      },
      async confirm(what = "a write") {
        heartbeat.fence.assertHeld(what);
        if (fencingDisabled()) return;
        const row = await ctx.store.getRun(run.runId);
        const why = journalFenceRefusal(row ?? undefined, { owner: ctx.workerId, epoch: run.epoch, now: ctx.clock.now() });
        if (why === undefined) return;
        heartbeat.refused(`the run store's lease row says ${why}`);
        throw leaseFenced(run.runId, run.epoch, what, why);
      },
    };
  }

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.ctx.heartbeatMs);
    this.timer.unref();
    this.armDeadline();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.timer = undefined;
    this.deadlineTimer = undefined;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** When this worker stops trusting its lease (ms, the manager's clock). */
  get localDeadline(): number {
    return this.validUntil - this.ctx.leaseMarginMs;
  }

  /** Extend the lease now; false when it is lost (also when the store cannot be reached). */
  async renew(): Promise<boolean> {
    if (!this.stillHeld()) return false;
    const now = this.ctx.clock.now();
    let held: boolean;
    try {
      held = await this.ctx.store.heartbeat(this.run.runId, this.ctx.workerId, this.run.epoch, this.ctx.leaseTtlMs, now);
    } catch (error) {
      this.ctx.log(`run ${this.run.runId}: lease heartbeat failed`, error);
      this.stillHeld();
      return false;
    }
    if (held && !this.lost) {
      this.validUntil = now + this.ctx.leaseTtlMs;
      this.armDeadline();
    } else if (!held) this.lose("the run store refused the heartbeat (another writer took the run)");
    return held && !this.lost;
  }

  /** The lease was refused elsewhere (a fenced journal or checkpoint write): it is lost for good. */
  refused(why: string): void {
    this.lose(why);
  }

  /** Held unless lost or past the local deadline (which loses it now). */
  private stillHeld(): boolean {
    if (this.lost) return false;
    if (this.ctx.clock.now() < this.localDeadline || fencingDisabled()) return true;
    this.lose(`the lease passed its local deadline (${new Date(this.localDeadline).toISOString()}: valid until ${new Date(this.validUntil).toISOString()} minus a ${this.ctx.leaseMarginMs} ms margin) without a renewal`);
    return false;
  }

  private async beat(): Promise<void> {
    // Checked even while a heartbeat hangs: a stuck store call must not keep the run going.
    if (!this.stillHeld() || this.beating) return;
    this.beating = true;
    try {
      if (await this.renew()) this.onBeat();
    } finally {
      this.beating = false;
    }
  }

  /** A timer for the local deadline (on the real clock, unref'd): fires even when no tick comes in time. */
  private armDeadline(): void {
    if (this.timer === undefined) return;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    const wait = Math.max(0, this.localDeadline - this.ctx.clock.now());
    this.deadlineTimer = setTimeout(() => void this.stillHeld(), wait);
    this.deadlineTimer.unref();
  }

  private lose(why: string): void {
    if (this.lost) return;
    if (fencingDisabled()) {
      // Test-only (KEEL_TEST_UNSAFE_NO_FENCING): the stale worker goes on writing, so a checker's negative control sees it.
      this.ctx.log(`run ${this.run.runId}: lease lost at epoch ${this.run.epoch}: ${why}; fencing is OFF (test-only switch), the run goes on`);
      return;
    }
    this.lost = true;
    this.lostWhy = why;
    // Refused, or unrenewable past its local deadline: either way the owner saw its lease expire.
    this.ctx.observer.leaseExpired("owner");
    this.ctx.log(`run ${this.run.runId}: lease lost at epoch ${this.run.epoch}: ${why}; the run stops`);
    this.stop();
    this.onLost();
  }
}
