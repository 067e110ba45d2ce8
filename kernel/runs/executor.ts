/**
 * The RunExecutor port: what actually runs the agent for the RunManager. The manager
 * owns admission, leases, streams and finalization; the executor only turns one run
 * record into an outcome. `createRuntimeExecutor` adapts a kernel AgentRuntime.
 */
import type { StepProgress } from "../loop/run-scope.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { RunFence } from "../ports/fence.js";
import type { JournalEntry, RunRecord } from "./types.js";

/** What the manager hands an executor for one run. */
export interface ExecutionIO {
  /**
   * Aborted when the run is cancelled (interrupt, rollback, shutdown) or its lease is
   * lost. The executor must stop promptly and return (a cancelled outcome is fine):
   * the manager waits for `execute` to settle before it restores or finalizes.
   */
  signal: AbortSignal;
  /** Publish a stream event (stream-event@1 name and data); ordered, asynchronous, never throws. */
  emit(event: string, data: unknown): void;
  /** Record a journal entry; the manager numbers entries in arrival order and flushes them in batches. */
  journal(entry: JournalEntry): void;
  /** What a step of the run just did (local to this worker: the run-status feed's activity); optional. */
  progress?(step: StepProgress): void;
  /**
   * The run's lease fence: its epoch, and `assertHeld()` to call before any write the
   * executor makes outside the manager (checkpoints, files). Lost → the signal aborts too.
   */
  fence?: RunFence;
}

export interface ExecutionResult {
  /** status@2 of the run. Ignored in favour of `cancelled` when the run was cancelled meanwhile. */
  outcome: StatusV2Payload;
  /** The thread's channel values at the end (for `/wait` and `/join` answers). */
  values?: Record<string, unknown>;
  /**
   * The run-report@1 document, saved with the run. When it is a run-report@1, the
   * manager sets its `events` to the events as published on the stream (ids included).
   */
  report?: unknown;
}

/**
 * A captured pre-run state that can be put back. Captured before the run changes
 * anything; valid while the run is active.
 */
export interface RollbackPoint {
  /** Put the captured state back, completely or not at all (throw when it cannot). */
  restore(): Promise<void>;
  /** Free what the capture holds (e.g. a workspace copy); called once the run is finished. */
  release(): Promise<void>;
}

/**
 * @example
 * const executor: RunExecutor = {
 *   async execute(run, io) {
 *     io.emit("custom", { hello: run.request.input });
 *     return { outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "hi" } };
 *   },
 *   async captureRollbackPoint() { return null; }, // rollback unavailable
 *   async getThreadState() { return {}; },
 * };
 */
export interface RunExecutor {
  /**
   * Run the agent for `run` (its request is already cleaned). A thrown error ends the run
   * `failed` with the error's message; an abort of `io.signal` should end it `cancelled`.
   */
  execute(run: RunRecord, io: ExecutionIO): Promise<ExecutionResult>;
  /**
   * Capture the thread's state (checkpoint, workspace) before a run starts. `null` when it
   * cannot be captured completely: rollback is then unavailable for that run (a rollback
   * request gets KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE, never a partial restore).
   */
  captureRollbackPoint(threadId: string): Promise<RollbackPoint | null>;
  /** The thread's persisted channel values (the state route); `{}` for a thread with none. */
  getThreadState(threadId: string): Promise<Record<string, unknown>>;
  /**
   * Whether a run may start from checkpoint `checkpointId` of the thread (`RunRequest.checkpointId`,
   * checkpoint-fork.ts). Optional: without it runs from an earlier checkpoint are not supported.
   */
  checkpointForkStatus?(threadId: string, checkpointId: string): Promise<"forkable" | "missing" | "unforkable">;
  /**
   * Remove what the executor keeps of a deleted thread once its runs have ended: the
   * checkpoints of `checkpointThreads` (the thread's own and its children's,
   * `<thread>/<agent path>`) and anything else it holds (a host's workspace directory).
   * Idempotent. Optional: without it a deleted thread's checkpoints stay behind.
   */
  purgeThread?(threadId: string, options: { checkpointThreads: readonly string[] }): Promise<void>;
}
