/**
 * This worker's side of the claim queue (kernel/runs/README.md, "The claim queue"): it
 * claims due pending runs from the store (`RunStore.claimDue`, atomic across workers)
 * and starts them while it runs fewer than `jobs`, so one worker never takes them all.
 * An admission on an idle thread with a free slot here starts its run in the admission
 * transaction itself (`AdmissionStart`: no other worker's poll can take it in between).
 * It fills after every admission, every run that ends here, every reaped run, and every
 * `pollMs` — the poll is what picks up runs that no event of this worker concerns: runs
 * left pending by a worker that shut down or died, runs admitted by a worker that was
 * full, runs whose due time came.
 */
import type { ManagerContext } from "./manager-context.js";
import type { RunRecord } from "./types.js";

/** Rounds one fill makes at most for callers that joined it; a later ask starts a new fill. */
const FILL_ROUNDS = 2;

export interface ClaimQueueHooks {
  /** How many runs this worker executes now. */
  running(): number;
  /** Start a claimed run; it must count in `running()` when this returns. */
  launch(run: RunRecord): void;
  /** True once the worker stops taking runs (shutdown). */
  stopped(): boolean;
}

export class ClaimQueue {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Claims in flight: slots taken before the store answered, so concurrent fills cannot overshoot `jobs`. */
  private reserved = 0;
  private filling: Promise<RunRecord[]> | null = null;
  /** A fill was asked for while one was under way: go round once more before settling. */
  private again = false;

  constructor(
    private readonly ctx: ManagerContext,
    private readonly jobs: number,
    private readonly hooks: ClaimQueueHooks,
  ) {}

  start(pollMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.fill(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Free slots: `jobs` minus the runs executing here and the claims in flight. */
  get free(): number {
    return this.jobs - this.hooks.running() - this.reserved;
  }

  /**
   * Take a free slot for a run this worker is admitting (it may start in the admission
   * transaction, `AdmissionStart`); false when none is free. Give it back with `release()`
   * once the run was launched or not started.
   */
  reserve(): boolean {
    if (this.hooks.stopped() || this.free <= 0) return false;
    this.reserved++;
    return true;
  }

  release(): void {
    this.reserved--;
  }

  /**
   * Claim and start due runs, in queue order, until no slot is free or none is due; one
   * fill at a time (a call during a fill joins it and makes it look again). Resolves with
   * the runs it started; never rejects (a failed claim is logged, the next fill retries).
   */
  fill(): Promise<RunRecord[]> {
    if (this.filling) {
      this.again = true;
      return this.filling;
    }
    // Started on the next tick, so that `filling` is set before `drain` can clear it.
    this.filling = Promise.resolve().then(() => this.drain());
    return this.filling;
  }

  private async drain(): Promise<RunRecord[]> {
    const started: RunRecord[] = [];
    let rounds = 0;
    try {
      do {
        this.again = false;
        rounds++;
        while (!this.hooks.stopped() && this.free > 0) {
          const run = await this.claimOne();
          if (!run) break;
          started.push(run);
        }
      } while (this.again && !this.hooks.stopped() && this.free > 0 && rounds < FILL_ROUNDS);
    } finally {
      // Cleared with no await after the last look at `again`: a fill asked from now on starts afresh.
      this.filling = null;
    }
    // Asked again during the last round: a new fill goes on, but nobody who joined this one waits
    // for it — under a storm of admissions (each asks for a fill) the rounds would never end,
    // and every admission awaiting its fill would wait with them.
    if (this.again && !this.hooks.stopped()) {
      this.again = false;
      void this.fill();
    }
    return started;
  }

  private async claimOne(): Promise<RunRecord | null> {
    this.reserved++;
    try {
      const run = await this.ctx.store.claimDue(this.ctx.workerId, this.ctx.leaseTtlMs, this.ctx.clock.now());
      if (run) this.hooks.launch(run);
      return run;
    } catch (error) {
      this.ctx.log("claiming the next due run failed; the next fill retries", error);
      return null;
    } finally {
      this.reserved--;
    }
  }
}
