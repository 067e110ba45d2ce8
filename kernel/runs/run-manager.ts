/**
 * The RunManager (kernel/runs/README.md) turns an invocation into an owned, bounded,
 * observable, recoverable run: admission with multitask strategies, worker leases with
 * heartbeats and CAS terminal writes, a reaper for dead workers, cancellation across
 * workers, graceful shutdown, and `end` as the commit marker of every run's stream.
 * It sits on the RunStore and StreamBridge ports; a RunExecutor runs the agent.
 * See kernel/runs/README.md for the full contract.
 */
import { KeelError } from "../errors.js";
import { newRunRecord, ownedThread } from "./admission.js";
import { RunCancellation, type CancelAction } from "./cancellation.js";
import { ClaimQueue } from "./claim-queue.js";
import { joinRun } from "./join-run.js";
import { closingEvents, followRun, watchForLostEnd, type FollowRunOptions } from "./follow-run.js";
import { EndRecoverySweep } from "./end-recovery.js";
import { LeaseReaper } from "./lease-reaper.js";
import { endNeverStartedStream, isTerminal, isoNow, markThreadBusy, type ManagerContext } from "./manager-context.js";
import { cancelledOutcome } from "./outcomes.js";
import { sanitizeRunRequest } from "./request-hygiene.js";
import { guardServiceObserver } from "./run-service-observer.js";
import { RunExecution } from "./run-execution.js";
import { RunFeedPublisher } from "./run-feed.js";
import { ThreadPurger, type ThreadDeletion } from "./thread-purge.js";
import { resolveOptions, type ResolvedOptions, type RunManagerOptions } from "./run-manager-options.js";
import type { AdmissionReplace, AdmissionResult, JournalEntry, MultitaskStrategy, RunRecord, RunRecordStatus, RunRequest, StreamEvent, SubscribeOptions } from "./types.js";
import { settlesWithin } from "./settles-within.js";

export type { RunManagerOptions } from "./run-manager-options.js";
export type { FollowRunOptions } from "./follow-run.js";

/** How long shutdown waits for interrupted runs to stop before leaving them to the reaper. */
const ABANDON_AFTER_MS = 5_000;
/** How often a `rollback` admission checks a newly running run and tries again before answering 409. */
const ROLLBACK_CHECK_ATTEMPTS = 4;
export type { CancelAction } from "./cancellation.js";
export type { ThreadDeletion } from "./thread-purge.js";

export interface CreateRunOptions {
  /** The authenticated user: the thread must be theirs. */
  user: string;
  /** What to do when the thread already has an active run. Default `reject`. */
  strategy?: MultitaskStrategy;
  /** When the run may start (ISO-8601); the claim queue starts it once due. Default: at once. */
  dueAt?: string;
}

export interface WaitRunOptions extends CreateRunOptions {
  /** Aborting stops the wait (KEEL_ERR_RUN_JOIN_ABORTED), not the run. */
  signal?: AbortSignal;
}

export interface CancelRunOptions {
  /** `interrupt` keeps the run's progress; `rollback` undoes it. Default `interrupt`. */
  action?: CancelAction;
  /** Resolve only after the run's `end`, with its final record. Default false. */
  wait?: boolean;
  /** When given, the thread must belong to this user. */
  user?: string;
  /** Aborts a `wait` (not the cancel). */
  signal?: AbortSignal;
}

/** Ownership scope of a read: when `user` is given, the thread must be theirs (else 404). */
export interface ThreadScope {
  user?: string;
}

export interface DeleteThreadOptions extends ThreadScope {
  /** How long to wait for the purge before answering `finished: false` (it goes on). Default 10 000 ms. */
  waitMs?: number;
}

export interface ListRunsOptions extends ThreadScope {
  limit?: number;
  offset?: number;
  status?: RunRecordStatus;
}

/**
 * @example
 * const manager = new RunManager({ store, bridge, executor: createRuntimeExecutor({ runtime, checkpointer }) });
 * manager.start();
 * const run = await manager.createOrReject("thread-1", { assistantId: "lead", input: "Hello" }, { user: "alice" });
 * const done = await manager.join(run.runId); // after `end`: done.outcome is the status@2
 * await manager.shutdown();
 */
export class RunManager {
  readonly workerId: string;
  private readonly options: ResolvedOptions;
  private readonly ctx: ManagerContext;
  private readonly executions = new Map<string, RunExecution>();
  private readonly starting = new Set<Promise<unknown>>();
  private readonly cancellation: RunCancellation;
  private readonly reaper: LeaseReaper;
  private readonly claims: ClaimQueue;
  private readonly purger: ThreadPurger;
  private readonly endRecovery: EndRecoverySweep;
  private recovering: Promise<{ ends: number; purges: number }> | null = null;
  private shuttingDown = false;
  private shutdownDone: Promise<void> | null = null;

  constructor(options: RunManagerOptions) {
    this.options = resolveOptions(options);
    this.workerId = this.options.workerId;
    // The run-status feed (run-feed.ts) taps the bridge: a tracked run's events and every `end`.
    const feed = new RunFeedPublisher(options.bridge, options.store, this.options.clock, this.options.log);
    this.ctx = {
      store: options.store,
      bridge: feed.wrap(options.bridge),
      feed,
      executor: options.executor,
      workerId: this.workerId,
      leaseTtlMs: this.options.leaseTtlMs,
      heartbeatMs: this.options.heartbeatMs,
      leaseMarginMs: this.options.leaseMarginMs,
      journalBatchSize: this.options.journalBatchSize,
      clock: this.options.clock,
      log: this.options.log,
      observer: guardServiceObserver(options.observer),
    };
    this.cancellation = new RunCancellation(this.ctx, this.executions);
    this.purger = new ThreadPurger(this.ctx, (run) => this.cancellation.cancel(run, "interrupt", "thread_deleted"));
    this.endRecovery = new EndRecoverySweep(this.ctx, { graceMs: this.options.endGraceMs, lookbackMs: this.options.endLookbackMs });
    this.reaper = new LeaseReaper(this.ctx, {
      loseLocalLease: (runId) => {
        const execution = this.executions.get(runId);
        if (!execution) return;
        this.ctx.observer.reaperAction("local_abort");
        execution.loseLease();
      },
      afterReap: async () => void (await this.startNext()),
      afterSweep: () => this.recoverOnce(),
    });
    this.claims = new ClaimQueue(this.ctx, this.options.jobs, {
      running: () => this.executions.size,
      launch: (run) => this.launch(run),
      stopped: () => this.shuttingDown,
    });
  }

  /**
   * Start the lease reaper and the claim queue's poll (idempotent). Runs are admitted and
   * executed with or without them; without the poll this worker claims only after its own
   * admissions, finished runs and reaper sweeps (or `claimPending()`).
   */
  start(): void {
    if (this.shuttingDown) return;
    this.reaper.start(this.options.reaperMs);
    this.claims.start(this.options.claimPollMs);
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /**
   * Stop admitting (KEEL_ERR_RUN_SHUTTING_DOWN), let this worker's running runs finish for
   * up to `shutdownGraceMs`, then interrupt the rest (outcome `cancelled`, status
   * `interrupted`, events flushed, `end` sent), and stop the reaper. Pending runs stay
   * pending for another worker (or the next admission on their thread). Idempotent.
   */
  shutdown(): Promise<void> {
    this.shutdownDone ??= this.drain();
    return this.shutdownDone;
  }

  /**
   * Admit a run on `threadId` (the URL's thread) for `user`, then start the thread's next
   * pending run on this worker if none is running. The request is cleaned first
   * (request-hygiene.ts). The returned record is persisted (status `pending`, or
   * `running` when this call started it); the run executes asynchronously.
   *
   * Strategies when the thread has active runs: `reject` → KEEL_ERR_RUN_CONFLICT;
   * `interrupt` → they are cancelled keeping their progress; `rollback` → they are
   * cancelled and their pre-run state restored (KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE, before
   * anything changes, when one cannot be undone); `enqueue` → the run waits its turn.
   * Also KEEL_ERR_THREAD_NOT_FOUND, KEEL_ERR_RUN_LIMIT, KEEL_ERR_RUN_SHUTTING_DOWN.
   */
  async createOrReject(threadId: string, request: RunRequest, options: CreateRunOptions): Promise<RunRecord> {
    this.assertAdmitting();
    const strategy = options.strategy ?? "reject";
    await ownedThread(this.ctx.store, threadId, options.user);
    const clean = sanitizeRunRequest(request, {
      maxTurns: this.options.maxTurns,
      runtimeOwnedKeys: this.options.runtimeOwnedKeys,
      ...(this.options.allowedModels ? { allowedModels: this.options.allowedModels } : {}),
    });
    const record = newRunRecord({ runId: this.options.newRunId(), threadId, user: options.user, request: clean, strategy, clock: this.ctx.clock });
    if (options.dueAt !== undefined) record.dueAt = dueAtOf(options.dueAt);
    if (strategy === "interrupt" || strategy === "rollback") return this.createReplacing(record, strategy);
    const admission = await this.admit(record);
    if (admission.ok && admission.run.status === "running") return admission.run;
    if (!admission.ok) {
      // Only pending runs block: a queue left behind (e.g. by a shutdown) gets started.
      if (admission.active.status === "pending") void this.startNext();
      throw new KeelError(
        "KEEL_ERR_RUN_CONFLICT",
        `thread \`${threadId}\` already has an active run (\`${admission.active.runId}\`, ${admission.active.status}); wait for it, cancel it, or use the strategy interrupt, rollback or enqueue`,
      );
    }
    // LangGraph's thread is busy from the admission of a run, pending runs included.
    await markThreadBusy(this.ctx, record.threadId, record.runId);
    const started = (await this.startNext()).find((run) => run.runId === record.runId);
    return started ?? admission.run;
  }

  /**
   * Interrupt/rollback: one admission transaction supersedes the thread's pending runs
   * (`AdmissionReplace`: written `interrupted` there, their streams ended here) and leaves
   * only its running run to cancel — so a storm of such admissions on one thread costs one
   * transaction and at most one cancel each, never the whole queue again. Under `rollback`
   * a running run is checked before anything is written: the store refuses an admission
   * that would replace a running run not known to be undoable, which is then checked
   * (KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE when it cannot be, and nothing changed) and the
   * admission tried again.
   */
  private async createReplacing(record: RunRecord, strategy: "interrupt" | "rollback"): Promise<RunRecord> {
    const checked: string[] = [];
    if (strategy === "rollback") {
      // Checked before the admission (outside the thread's lock), so that it usually passes at once.
      const running = (await this.ctx.store.activeRuns(record.threadId)).filter((r) => r.status === "running");
      await this.cancellation.assertRollbackPossible(running);
      checked.push(...running.map((r) => r.runId));
    }
    let admission: AdmissionResult;
    for (let attempt = 1; ; attempt++) {
      this.assertAdmitting();
      const outcome = cancelledOutcome(strategy, undefined, `it had not started; superseded by run \`${record.runId}\``);
      admission = await this.admit(record, { outcome, now: isoNow(this.ctx.clock), rollbackChecked: checked });
      if (admission.ok) break;
      const running = admission.active;
      if (checked.includes(running.runId) || attempt >= ROLLBACK_CHECK_ATTEMPTS) {
        throw new KeelError("KEEL_ERR_RUN_CONFLICT", `thread \`${record.threadId}\` kept starting other runs while run \`${record.runId}\` was being admitted with rollback; try again`);
      }
      await this.cancellation.assertRollbackPossible([running]);
      checked.push(running.runId);
    }
    if (admission.superseded) await Promise.all(admission.superseded.map((run) => this.cancellation.endSuperseded(run)));
    if (admission.run.status === "running") return admission.run;
    await markThreadBusy(this.ctx, record.threadId, record.runId);
    if (admission.superseded) {
      // A store that supersedes checked the running runs it returned (rollback) in its transaction.
      for (const run of admission.active) await this.cancellation.cancel(run, strategy, strategy);
    } else {
      await this.replaceActiveRuns(admission.run, admission.active, checked, strategy);
    }
    const started = (await this.startNext()).find((run) => run.runId === record.runId);
    return started ?? admission.run;
  }

  /** `createOrReject`, then `join`: resolves with the finished record only after its `end`. */
  async wait(threadId: string, request: RunRequest, options: WaitRunOptions): Promise<RunRecord> {
    const run = await this.createOrReject(threadId, request, options);
    return this.join(run.runId, options.signal);
  }

  /**
   * Resolve with the run's terminal record once its stream shows `end` (the commit
   * marker). If `signal` aborts first, reject with KEEL_ERR_RUN_JOIN_ABORTED: a caller
   * that goes away never receives an unfinished run as a result.
   */
  join(runId: string, signal?: AbortSignal): Promise<RunRecord> {
    return joinRun(this.ctx, runId, signal, this.options.joinRecheckMs);
  }

  /** The run's events (replay after `lastEventId`, then live until `end`): the bridge subscription. */
  stream(runId: string, options: SubscribeOptions = {}): AsyncIterable<StreamEvent> {
    return this.ctx.bridge.subscribe(runId, options);
  }

  /**
   * A reader's stream of the run that always ends with `end` unless `signal` aborts
   * (follow-run.ts): `stream` with the lost-end watchdog, resubscribing after a bridge
   * failure, going on after a `gap`, and closing from the record when the bridge has no
   * `end` to give. What the SSE routes send.
   */
  follow(runId: string, options: FollowRunOptions = {}): AsyncIterable<StreamEvent> {
    return followRun(this.ctx, runId, options, this.options.joinRecheckMs);
  }

  /**
   * For a reader of `stream`: every `joinRecheckMs`, read the run's record; a finished run
   * whose `end` does not come gets it published, and if that fails too `onLost(run)` is
   * called — stop the subscription and finish with `closingEvents(run, received)`
   * (follow-run.ts). Returns the stop function.
   */
  watchForLostEnd(runId: string, onLost: (run: RunRecord) => void): () => void {
    return watchForLostEnd(this.ctx, runId, this.options.joinRecheckMs, onLost);
  }

  /** The record's closing events for a stream whose `end` was lost (after the `received` ones): ids empty, `end` last. */
  closingEvents(run: RunRecord, received: readonly Pick<StreamEvent, "event">[]): Promise<StreamEvent[]> {
    return closingEvents(this.ctx, run, received);
  }

  /**
   * Cancel a run of `threadId`: a pending run is cancelled in the store; a running one is
   * aborted here or, when another worker owns it, through a control message. A finished
   * run is returned as is. With `wait`, resolves after the run's `end`.
   * KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE for a rollback of a run that cannot be undone.
   */
  async cancel(threadId: string, runId: string, options: CancelRunOptions = {}): Promise<RunRecord> {
    const action = options.action ?? "interrupt";
    const run = await this.getRun(threadId, runId, options);
    if (isTerminal(run.status)) return run;
    if (action === "rollback") await this.cancellation.assertRollbackPossible([run]);
    await this.cancellation.cancel(run, action, action === "rollback" ? "rollback" : "request");
    if (options.wait) return this.join(runId, options.signal);
    return this.getRun(threadId, runId, options);
  }

  /**
   * Delete a thread (thread-purge.ts): mark it deleted in one store write (it reads as
   * missing and admits no run from then on), cancel its pending and running runs, and once
   * they ended remove its checkpoints, workspace, streams and store rows. Resolves when the
   * purge finished or after `waitMs` (`finished: false`: it goes on in the background).
   * KEEL_ERR_THREAD_NOT_FOUND when the thread is missing, another user's, or being deleted.
   */
  deleteThread(threadId: string, options: DeleteThreadOptions = {}): Promise<ThreadDeletion> {
    return this.purger.delete(threadId, options);
  }

  /** KEEL_ERR_RUN_NOT_FOUND when the run does not exist or is not a run of `threadId` (of `user`). */
  async getRun(threadId: string, runId: string, scope: ThreadScope = {}): Promise<RunRecord> {
    if (scope.user !== undefined) await this.scopedThread(threadId, scope.user);
    const run = await this.ctx.store.getRun(runId);
    if (!run || run.threadId !== threadId) throw new KeelError("KEEL_ERR_RUN_NOT_FOUND", `run \`${runId}\` does not exist on thread \`${threadId}\``);
    return run;
  }

  /** Runs of the thread, newest first (default 10 from offset 0). */
  async listRuns(threadId: string, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    if (options.user !== undefined) await ownedThread(this.ctx.store, threadId, options.user);
    return this.ctx.store.listRuns(threadId, { limit: options.limit ?? 10, offset: options.offset ?? 0, ...(options.status ? { status: options.status } : {}) });
  }

  /** The thread's persisted channel values, from the executor (the state route). */
  async getThreadState(threadId: string, scope: ThreadScope = {}): Promise<Record<string, unknown>> {
    if (scope.user !== undefined) await ownedThread(this.ctx.store, threadId, scope.user);
    return this.ctx.executor.getThreadState(threadId);
  }

  /**
   * Whether a run on `threadId` may start from its checkpoint `checkpointId` (a fork):
   * `unsupported` when the executor cannot fork (checkpoint-fork.ts).
   */
  async checkpointForkStatus(threadId: string, checkpointId: string, scope: ThreadScope = {}): Promise<"forkable" | "missing" | "unforkable" | "unsupported"> {
    if (scope.user !== undefined) await ownedThread(this.ctx.store, threadId, scope.user);
    const status = this.ctx.executor.checkpointForkStatus?.bind(this.ctx.executor);
    return status ? status(threadId, checkpointId) : "unsupported";
  }

  /** The run's saved run-report@1, or null before its finalization. */
  async getReport(threadId: string, runId: string, scope: ThreadScope = {}): Promise<unknown | null> {
    await this.getRun(threadId, runId, scope);
    return this.ctx.store.getReport(runId);
  }

  /** The run's journal entries flushed so far. */
  async readJournal(threadId: string, runId: string, scope: ThreadScope = {}): Promise<JournalEntry[]> {
    await this.getRun(threadId, runId, scope);
    return this.ctx.store.readJournal(runId);
  }

  /**
   * Runs executing on this worker, and the store's pending and running runs across every
   * worker when the store can count them (`RunStore.countRuns`): what the metrics gauges show.
   */
  async runCounts(): Promise<{ executing: number; pending?: number; running?: number }> {
    const executing = this.executions.size;
    const count = this.ctx.store.countRuns?.bind(this.ctx.store);
    if (!count) return { executing };
    const [pending, running] = await Promise.all([count("pending"), count("running")]);
    return Number.isNaN(pending) || Number.isNaN(running) ? { executing } : { executing, pending, running };
  }

  /**
   * One pass of the claim queue now (the poll does this every `claimPollMs`): claim due
   * pending runs of any thread and start them while this worker runs fewer than `jobs`.
   * Resolves with the runs it started.
   */
  claimPending(): Promise<RunRecord[]> {
    return this.startNext();
  }

  /**
   * One recovery sweep now (the reaper timer runs one after each of its sweeps): publish the
   * final events and `end` of finished runs whose stream lacks them (end-recovery.ts), and
   * finish the purges of deleted threads (thread-purge.ts). One at a time.
   */
  recoverOnce(): Promise<{ ends: number; purges: number }> {
    this.recovering ??= (async () => {
      const ends = await this.endRecovery.sweepOnce();
      const purges = await this.purger.resumePurges();
      return { ends, purges };
    })().finally(() => (this.recovering = null));
    return this.recovering;
  }

  /** One reaper sweep now (the reaper timer does this every `reaperMs`); resolves with the runs it reaped. */
  reapExpired(): Promise<RunRecord[]> {
    return this.reaper.reapOnce();
  }

  private assertAdmitting(): void {
    if (this.shuttingDown) throw new KeelError("KEEL_ERR_RUN_SHUTTING_DOWN", `worker \`${this.workerId}\` is shutting down and admits no new runs`);
  }

  /** A missing run and another user's run look the same: 404 either way. */
  private async scopedThread(threadId: string, user: string): Promise<void> {
    try {
      await ownedThread(this.ctx.store, threadId, user);
    } catch (error) {
      if (error instanceof KeelError && error.code === "KEEL_ERR_THREAD_NOT_FOUND") throw new KeelError("KEEL_ERR_RUN_NOT_FOUND", error.message, { cause: error });
      throw error;
    }
  }

  /**
   * Interrupt/rollback on a store that does not supersede in its admission
   * (`AdmissionReplace` ignored): cancel the runs that were active at admission, one by
   * one. Running runs not checked before the admission are checked now; if one of them cannot
   * be undone, the new run is withdrawn (deleted before it started: the refusal leaves no
   * record; a store without `withdrawPending` cancels it instead) and the error thrown.
   */
  private async replaceActiveRuns(admitted: RunRecord, active: RunRecord[], checked: readonly string[], strategy: "interrupt" | "rollback"): Promise<void> {
    const others = active.filter((r) => r.runId !== admitted.runId);
    if (strategy === "rollback") {
      const unchecked = others.filter((r) => r.status === "running" && !checked.includes(r.runId));
      try {
        await this.cancellation.assertRollbackPossible(unchecked);
      } catch (error) {
        // Refusals leave nothing: the run, persisted but never started, is deleted.
        if (this.ctx.store.withdrawPending && (await this.ctx.store.withdrawPending(admitted.runId))) throw error;
        const outcome = cancelledOutcome("request", undefined, "withdrawn at admission: an active run could not be rolled back");
        if (await this.ctx.store.cancelPending(admitted.runId, outcome, isoNow(this.ctx.clock))) {
          this.ctx.observer.runEnded("interrupted", "cancel");
          await endNeverStartedStream(this.ctx, admitted);
        }
        throw error;
      }
    }
    for (const run of others) await this.cancellation.cancel(run, strategy, strategy);
  }

  /**
   * `store.admitRun` with the per-user limit (counted inside the admission transaction, so a
   * burst cannot overshoot it) and, when this worker has a free slot, the start at admission:
   * a run on an idle thread is inserted running under this worker's lease and launched here.
   */
  private async admit(record: RunRecord, replace?: AdmissionReplace): Promise<AdmissionResult> {
    const limits = { maxActivePerUser: this.options.maxActiveRunsPerUser };
    if (!this.claims.reserve()) {
      const admission = await this.ctx.store.admitRun(record, limits, undefined, replace);
      if (admission.ok) this.ctx.feed.admitted(admission.run);
      return admission;
    }
    const admitting = (async () => {
      try {
        const admission = await this.ctx.store.admitRun(record, limits, { owner: this.workerId, ttlMs: this.options.leaseTtlMs, now: this.ctx.clock.now() }, replace);
        if (admission.ok && admission.run.status === "running") this.launch(admission.run);
        else if (admission.ok) this.ctx.feed.admitted(admission.run);
        return admission;
      } finally {
        this.claims.release();
      }
    })();
    // A shutdown waits for it: a run started here is then one of the runs it lets finish.
    this.starting.add(admitting);
    void admitting.catch(() => undefined).finally(() => this.starting.delete(admitting));
    return admitting;
  }

  /** Fill this worker's free slots from the claim queue (claim-queue.ts); the runs it started. */
  private startNext(): Promise<RunRecord[]> {
    if (this.shuttingDown) return Promise.resolve([]);
    const claiming = this.claims.fill();
    this.starting.add(claiming);
    void claiming.finally(() => this.starting.delete(claiming));
    return claiming;
  }

  private launch(run: RunRecord): void {
    const execution = new RunExecution(this.ctx, run);
    this.executions.set(run.runId, execution);
    void execution.finished.finally(() => {
      this.executions.delete(run.runId);
      void this.startNext();
    });
  }

  private async drain(): Promise<void> {
    this.shuttingDown = true;
    this.reaper.stop();
    this.claims.stop();
    this.cancellation.stop();
    await Promise.allSettled([...this.starting]);
    const running = () => [...this.executions.values()];
    if (running().length === 0) return;
    await settlesWithin(Promise.all(running().map((e) => e.finished)), this.options.shutdownGraceMs);
    for (const execution of running()) execution.requestCancel("shutdown", false);
    // An executor that ignores its signal must not hold the process forever: after a
    // further bound its run is left to the reaper (its lease stops being renewed once the
    // process exits, and nothing is reported as success).
    const stopped = await settlesWithin(Promise.all(running().map((e) => e.finished)), Math.max(this.options.shutdownGraceMs, ABANDON_AFTER_MS));
    if (!stopped) for (const execution of running()) this.ctx.log(`run ${execution.runId}: the executor did not stop after being interrupted; leaving the run to the reaper`);
  }

}

/** A run's due time: an ISO-8601 instant, else KEEL_ERR_CONFIG_INVALID. */
function dueAtOf(raw: string): string {
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `the run's due time \`${raw}\` is not an ISO-8601 instant`, { pointer: "/dueAt" });
  return new Date(ms).toISOString();
}
