/**
 * Cancelling an active run wherever it is: a pending run is cancelled in the store (it
 * never started, so there is nothing to abort or undo); a running run owned by this
 * worker is aborted locally; one owned by another worker gets a control message.
 */
import { KeelError } from "../errors.js";
import { endNeverStartedStream, isoNow, settleThreadStatus, type ManagerContext } from "./manager-context.js";
import { cancelledOutcome, type CancelCause } from "./outcomes.js";
import { ROLLBACK_POINT_ENTRY, type RunExecution } from "./run-execution.js";
import type { RunRecord } from "./types.js";

export type CancelAction = "interrupt" | "rollback";

/** How many times a control message is re-sent while the remote run keeps running. */
const CONTROL_RESENDS = 3;
/** How many undoable remote runs are remembered (oldest forgotten first). */
const UNDOABLE_REMEMBERED = 1_000;

export class RunCancellation {
  private readonly resendTimers = new Set<ReturnType<typeof setTimeout>>();
  /** Remote runs (`run@epoch`) whose journal showed a captured rollback point. */
  private readonly undoable = new Set<string>();
  /** Control series under way (`run@epoch:action`). */
  private readonly sending = new Set<string>();

  constructor(
    private readonly ctx: ManagerContext,
    private readonly executions: ReadonlyMap<string, RunExecution>,
  ) {}

  /**
   * Whether `run` can be undone completely. A pending run has changed nothing; a running
   * one needs its captured rollback point — known locally, or from the journal entry its
   * owner wrote right after capturing (absent → treated as unavailable: no guessing).
   */
  async canRollBack(run: RunRecord): Promise<boolean> {
    if (run.status !== "running") return true;
    const local = await this.localExecution(run);
    if (local) return local.rollbackAvailable;
    const key = `${run.runId}@${run.epoch}`;
    if (this.undoable.has(key)) return true;
    const journal = await this.ctx.store.readJournal(run.runId);
    const captured = journal.some((e) => e.kind === "lifecycle" && e.name === ROLLBACK_POINT_ENTRY && e.status === "captured");
    // A captured rollback point stays captured for that lease: a rollback storm reads the journal once.
    if (captured) this.rememberUndoable(key);
    return captured;
  }

  private rememberUndoable(key: string): void {
    this.undoable.add(key);
    if (this.undoable.size > UNDOABLE_REMEMBERED) this.undoable.delete(this.undoable.values().next().value!);
  }

  /** Throws KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE naming the first run that cannot be undone. */
  async assertRollbackPossible(runs: readonly RunRecord[]): Promise<void> {
    for (const run of runs) {
      if (!(await this.canRollBack(run))) {
        throw new KeelError(
          "KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE",
          `run \`${run.runId}\` cannot be rolled back: its pre-run checkpoint or workspace snapshot could not be captured; nothing was changed (use \`interrupt\` to keep its progress instead)`,
        );
      }
    }
  }

  /** Cancel `run` (pending or running); returns without waiting for its `end`. */
  async cancel(run: RunRecord, action: CancelAction, cause: CancelCause): Promise<void> {
    let current: RunRecord | null = run;
    if (current.status === "pending") {
      const outcome = cancelledOutcome(cause, undefined, "it had not started");
      if (await this.ctx.store.cancelPending(current.runId, outcome, isoNow(this.ctx.clock))) {
        this.ctx.observer.runEnded("interrupted", "cancel");
        await settleThreadStatus(this.ctx, current.threadId, current.runId, outcome).catch((error) => this.ctx.log(`run ${current!.runId}: the thread's status after its cancel could not be set`, error));
        await endNeverStartedStream(this.ctx, current);
        return;
      }
      // Claimed between the read and the cancel: it is running now.
      current = await this.ctx.store.getRun(run.runId);
    }
    if (current?.status !== "running") return;
    const local = await this.localExecution(current);
    if (local) local.requestCancel(cause, action === "rollback");
    else await this.sendControl(current, action);
  }

  /** A pending run an admission superseded in its transaction (already `interrupted` in the store): count it and end its stream. */
  async endSuperseded(run: RunRecord): Promise<void> {
    this.ctx.observer.runEnded("interrupted", "cancel");
    await endNeverStartedStream(this.ctx, run);
  }

  /** Stop re-sending control messages (shutdown). */
  stop(): void {
    for (const timer of this.resendTimers) clearTimeout(timer);
    this.resendTimers.clear();
    this.sending.clear();
  }

  /**
   * The execution of a run this worker owns. The claim and the start of its execution are
   * one step, but a reader can see the claimed record in between: look once more after
   * the current turn of the event loop.
   */
  private async localExecution(run: RunRecord): Promise<RunExecution | undefined> {
    const found = this.executions.get(run.runId);
    if (found || run.owner !== this.ctx.workerId) return found;
    await new Promise((resolve) => setImmediate(resolve));
    return this.executions.get(run.runId);
  }

  /**
   * The owner subscribes to control messages right after claiming; a message sent in
   * that instant would be lost, so it is re-sent a few times while the run keeps running
   * with the same epoch (the owner treats repeats as one cancel).
   */
  private async sendControl(run: RunRecord, action: CancelAction, remaining = CONTROL_RESENDS): Promise<void> {
    // Many admissions replacing one remote run (an interrupt storm) send it one series of
    // messages, not one each: a series under way for the same epoch and action covers them.
    const series = `${run.runId}@${run.epoch}:${action}`;
    if (remaining === CONTROL_RESENDS) {
      if (this.sending.has(series)) return;
      this.sending.add(series);
    }
    try {
      await this.ctx.bridge.publishControl(run.runId, { type: "cancel", action });
    } catch (error) {
      this.sending.delete(series);
      throw error;
    }
    if (remaining === 0) {
      this.sending.delete(series);
      return;
    }
    const timer = setTimeout(() => {
      this.resendTimers.delete(timer);
      void (async () => {
        const latest = await this.ctx.store.getRun(run.runId);
        if (latest?.status === "running" && latest.epoch === run.epoch) await this.sendControl(latest, action, remaining - 1);
        else this.sending.delete(series);
      })().catch((error) => {
        this.sending.delete(series);
        this.ctx.log(`run ${run.runId}: re-sending the cancel failed`, error);
      });
    }, this.ctx.heartbeatMs);
    timer.unref();
    this.resendTimers.add(timer);
  }
}
