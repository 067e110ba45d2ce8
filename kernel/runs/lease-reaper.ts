/**
 * The reaper: every `reaperMs` it finds running runs whose lease expired (their worker
 * died or stalled) and ends them `failed` with stop reason `lease_expired`. The terminal
 * write is a CAS on the run's epoch and on the lease still being expired, so a live
 * owner that renews in time keeps its run, and an owner that renews too late finds its
 * heartbeat and its own terminal write refused. The dead worker will never send `end`,
 * so the reaper does, after the status writes, and then starts the thread's next pending
 * run. A reaped run's children ran inside the dead worker's process and died with it;
 * their delegation entries are the delegation plugins' business, not the run store's.
 */
import { isoNow, type ManagerContext } from "./manager-context.js";
import { RUN_STATUS_OF_OUTCOME } from "../../contracts/run/v1.js";
import { leaseExpiredOutcome } from "./outcomes.js";
import type { RunRecord } from "./types.js";

export interface ReaperHooks {
  /** This worker's execution of the run, if it has one (it stalled past its lease). */
  loseLocalLease(runId: string): void;
  /** Called after a run was reaped (start the thread's next pending run). */
  afterReap(run: RunRecord): Promise<void>;
  /** Called by the timer after each sweep (the recovery sweep: lost `end`s, unfinished thread purges). */
  afterSweep?(): Promise<unknown>;
}

export class LeaseReaper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private sweeping: Promise<RunRecord[]> | null = null;

  constructor(
    private readonly ctx: ManagerContext,
    private readonly hooks: ReaperHooks,
  ) {}

  start(intervalMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      void this.reapOnce()
        .catch((error) => this.ctx.log("the lease reaper's sweep failed", error))
        .then(() => this.hooks.afterSweep?.())
        .catch((error) => this.ctx.log("the recovery sweep failed", error));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One sweep (one at a time); resolves with the runs this call reaped, as now stored. */
  reapOnce(): Promise<RunRecord[]> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweep(): Promise<RunRecord[]> {
    const now = this.ctx.clock.now();
    const reaped: RunRecord[] = [];
    this.ctx.observer.reaperAction("sweep");
    for (const run of await this.ctx.store.expiredRuns(now)) {
      this.ctx.observer.leaseExpired("reaper");
      const outcome = leaseExpiredOutcome(run.owner, run.leaseExpiresAt);
      if (!(await this.ctx.store.expireRun(run.runId, run.epoch, outcome, now))) {
        this.ctx.observer.reaperAction("skipped");
        continue;
      }
      this.ctx.observer.reaperAction("reaped");
      this.ctx.observer.runEnded(RUN_STATUS_OF_OUTCOME[outcome.status], "reaper");
      this.hooks.loseLocalLease(run.runId);
      await this.publish(run.runId, () => this.ctx.bridge.publish(run.runId, "error", { error: "lease_expired", message: outcome.error!.message, type: "lease_expired" }, { epoch: run.epoch }));
      await this.ctx.store.updateThread(run.threadId, { status: "error" }, isoNow(this.ctx.clock));
      await this.publish(run.runId, () => this.ctx.bridge.end(run.runId, { epoch: run.epoch }));
      reaped.push((await this.ctx.store.getRun(run.runId)) ?? run);
      await this.hooks.afterReap(run);
    }
    return reaped;
  }

  private async publish(runId: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.ctx.log(`run ${runId}: the reaper could not publish to the stream`, error);
    }
  }
}
