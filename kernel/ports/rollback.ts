/**
 * The `rollback` port: state a run may change outside the checkpointer (a thread's files),
 * snapshotted before the run and put back when the run is rolled back. The runtime
 * executor captures it beside the checkpoint when a plugin of the stack provides it (the
 * built-in provider is the workspace plugin); the kernel knows no more than this interface.
 */

/** Two-phase restore, so a composite rollback point can stage everything before changing anything. */
export interface StagedRollback {
  /** Check and prepare what can be prepared; nothing visible changes. */
  prepare(): Promise<{ commit(): Promise<void>; abort(): Promise<void> }>;
  release(): Promise<void>;
}

export interface RollbackPort {
  /**
   * Snapshot what the run may change on `threadId`, before it starts. Null when it cannot
   * be taken completely (rollback is then unavailable for the run, never partial).
   * `scratchDir` is where the snapshot may be kept while the run is active.
   */
  capture(threadId: string, options: { scratchDir: string }): Promise<StagedRollback | null>;
}

export const ROLLBACK_PORT = "rollback";
