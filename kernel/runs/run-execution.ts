/**
 * One claimed run on this worker, from claim to `end`: heartbeat, control messages,
 * rollback point, the executor, then the ordered finalization (finalize-run.ts).
 */
import { isKeelError, KeelError } from "../errors.js";
import type { ExecutionIO, ExecutionResult, RollbackPoint } from "./executor.js";
import { finalizeRun } from "./finalize-run.js";
import { LeaseHeartbeat } from "./lease-heartbeat.js";
import { isoNow, type ManagerContext } from "./manager-context.js";
import type { CancelCause, CancelRequest } from "./outcomes.js";
import { RunOutput } from "./run-output.js";
import type { ControlMessage, RunRecord } from "./types.js";

/** Journal entry name recording whether the run's rollback point was captured (read by other workers). */
export const ROLLBACK_POINT_ENTRY = "rollback_point";

export class RunExecution {
  readonly runId: string;
  readonly threadId: string;
  /** Settles when the run is finalized (or given up after losing its lease); never rejects. */
  readonly finished: Promise<void>;
  private readonly controller = new AbortController();
  private readonly output: RunOutput;
  private readonly heartbeat: LeaseHeartbeat;
  private cancelRequest: CancelRequest | null = null;
  /** Set once the outcome is decided: a cancel arriving later is too late to change it. */
  private settled = false;
  private rollbackPoint: RollbackPoint | null = null;
  private resolveCaptured!: (available: boolean) => void;
  /** Whether the rollback point could be captured; resolves before the executor starts. */
  readonly rollbackAvailable: Promise<boolean>;

  constructor(
    private readonly ctx: ManagerContext,
    readonly run: RunRecord,
  ) {
    this.runId = run.runId;
    this.threadId = run.threadId;
    this.heartbeat = new LeaseHeartbeat(
      ctx,
      run,
      () => this.loseLease(),
      // Never rejects: a failed journal write is kept for the next one (run-output.ts).
      () => void this.output.flushJournal(),
    );
    this.output = new RunOutput(run.runId, ctx.bridge, ctx.store, ctx.journalBatchSize, ctx.log, run.epoch, {
      fence: this.heartbeat.fence,
      owner: ctx.workerId,
      refused: (why) => this.heartbeat.refused(why),
    });
    this.rollbackAvailable = new Promise((resolve) => (this.resolveCaptured = resolve));
    ctx.feed.claimed(run);
    this.finished = this.execute();
  }

  /** Cancel this run: abort the executor; with `rollback`, restore the pre-run state before finalizing. */
  requestCancel(cause: CancelCause, rollback: boolean): void {
    if (this.settled) return;
    if (this.cancelRequest) {
      // A rollback asked after an interrupt still undoes the run (it has not finalized yet).
      this.cancelRequest.rollback ||= rollback;
      return;
    }
    this.cancelRequest = { cause, rollback };
    this.controller.abort(new KeelError("KEEL_ERR_RUN_CANCELLED", `run \`${this.runId}\` was cancelled (${cause})`));
  }

  /** The lease is lost (refused, past its local deadline, or the reaper took the run): stop without writing anything terminal. */
  loseLease(): void {
    this.heartbeat.refused("the run was ended by another writer (the reaper)");
    this.output.silence();
    this.settled = true;
    if (!this.controller.signal.aborted) this.controller.abort(new KeelError("KEEL_ERR_RUN_CANCELLED", `run \`${this.runId}\` lost its lease`));
  }

  private async execute(): Promise<void> {
    let unsubscribe: (() => Promise<void>) | undefined;
    try {
      let result: ExecutionResult | undefined;
      let failure: unknown;
      try {
        // Before the heartbeat: a subscription that hangs leaves the run to its lease, as nothing else can stop it.
        unsubscribe = await this.ctx.bridge.onControl(this.runId, (message: ControlMessage) => {
          if (message.type === "cancel") this.requestCancel(message.action === "rollback" ? "rollback" : "request", message.action === "rollback");
        });
      } catch (error) {
        failure = error;
      }
      this.heartbeat.start();
      this.output.emit("metadata", { run_id: this.runId, thread_id: this.threadId, attempt: this.run.epoch });
      if (failure === undefined) {
        try {
          await this.ctx.store.updateThread(this.threadId, { status: "busy" }, isoNow(this.ctx.clock));
          await this.captureRollbackPoint();
        } catch (error) {
          failure = error;
        }
      }
      if (failure !== undefined) {
        // The control subscription (cancels sent by other workers) or the thread's status could not be set
        // up: the executor does not start, and the run ends `error` with this failure (finalized below)
        // instead of staying `running` until the reaper marks it lease_expired.
        this.resolveCaptured(false);
        this.ctx.log(`run ${this.runId}: preparing the run failed before its executor started; the run ends with this error`, failure);
      }

      const executorStarted = failure === undefined && !this.controller.signal.aborted;
      if (executorStarted) {
        try {
          result = await this.ctx.executor.execute(this.run, this.io());
        } catch (error) {
          failure = error;
          // A write the store refused for the lease (a checkpoint): the lease is lost, whatever this worker believed.
          if (isKeelError(error) && error.code === "KEEL_ERR_LEASE_FENCED") this.heartbeat.refused(error.message);
        }
      }
      await finalizeRun(this.ctx, {
        run: this.run,
        output: this.output,
        heartbeat: this.heartbeat,
        result,
        failure,
        executorStarted,
        rollbackPoint: this.rollbackPoint,
        // Read at the last moment, then frozen: finalization decides the outcome once.
        takeCancel: () => {
          this.settled = true;
          return this.heartbeat.isLost ? null : this.cancelRequest;
        },
      });
    } catch (error) {
      this.ctx.log(await this.afterFailure(), error);
    } finally {
      this.settled = true;
      this.heartbeat.stop();
      this.resolveCaptured(false);
      await unsubscribe?.().catch((error) => this.ctx.log(`run ${this.runId}: control unsubscribe failed`, error));
      await this.rollbackPoint?.release().catch((error) => this.ctx.log(`run ${this.runId}: releasing the rollback point failed`, error));
    }
  }

  /** What a failure while finalizing leaves (the store or bridge refused the end): a terminal record is not the reaper's business. */
  private async afterFailure(): Promise<string> {
    const stored = await this.ctx.store.getRun(this.runId).catch(() => null);
    if (stored && stored.status !== "pending" && stored.status !== "running") {
      return `run ${this.runId}: a store or bridge call failed after its terminal record (\`${stored.status}\`) was written; the recovery sweep publishes its final events and \`end\``;
    }
    return `run ${this.runId}: a store or bridge call failed outside the executor while ending the run; the run is left to its lease (the reaper marks it failed)`;
  }

  private async captureRollbackPoint(): Promise<void> {
    const started = this.ctx.clock.now();
    try {
      this.rollbackPoint = await this.ctx.executor.captureRollbackPoint(this.threadId);
    } catch (error) {
      this.ctx.log(`run ${this.runId}: capturing the rollback point failed; rollback is unavailable for this run`, error);
      this.rollbackPoint = null;
    }
    this.output.journal({
      seq: 0,
      at: isoNow(this.ctx.clock),
      runId: this.runId,
      agent: "lead",
      turn: 0,
      kind: "lifecycle",
      name: ROLLBACK_POINT_ENTRY,
      status: this.rollbackPoint ? "captured" : "unavailable",
      durationMs: this.ctx.clock.now() - started,
    });
    // Written at once: another worker deciding on a rollback reads it from the journal. If the
    // write fails the run goes on (the entry is retried later); until then other workers
    // find no entry, which counts as "unavailable" — the safe answer.
    await this.output.flushJournal();
    this.resolveCaptured(this.rollbackPoint !== null);
  }

  private io(): ExecutionIO {
    return {
      signal: this.controller.signal,
      emit: (event, data) => this.output.emit(event, data),
      journal: (entry) => {
        this.output.journal(entry);
        this.ctx.feed.journal(this.runId, entry);
      },
      progress: (step) => this.ctx.feed.progress(this.runId, step),
      fence: this.heartbeat.fence,
    };
  }
}
