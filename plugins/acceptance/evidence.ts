/** What a leaf check found: `holds` is meaningful only when `checked`. */
export interface LeafOutcome {
  checked: boolean;
  holds: boolean;
  detail: string;
}

export const holds = (detail: string): LeafOutcome => ({ checked: true, holds: true, detail });
export const doesNotHold = (detail: string): LeafOutcome => ({ checked: true, holds: false, detail });
export const unverified = (detail: string): LeafOutcome => ({ checked: false, holds: false, detail });

/** The part of the workspace port (kernel/ports/workspace.ts) the checks use. */
export interface WorkspaceResolver {
  /** Resolve a path inside the thread's workspace; throws for a path that escapes it. */
  resolve(threadId: string, path: string): { abs: string; rel: string };
}

/** One entry of the workspace plugin's `bashRuns` channel (the fields the checks read). */
export interface BashRunEvidence {
  command: string;
  commandTruncated: boolean;
  exitCode: number | null;
  outputTail: string;
  truncated?: boolean;
  timedOut?: boolean;
  persistentShell: boolean;
  at?: string;
  toolCallId?: string;
}

/** `validate` from contracts/registry.ts, or anything with its shape. */
export type ContractValidator = (ref: string, payload: unknown) => { valid: boolean; errors: ReadonlyArray<{ pointer: string; message: string }> };

/** Execution evidence of one agent run. */
export interface AcceptanceEvidence {
  workspace: WorkspaceResolver;
  threadId: string;
  /** The `bashRuns` channel, oldest first. */
  bashRuns: readonly BashRunEvidence[];
  /**
   * Paths (as the tool calls gave them) that `write_file`/`str_replace` wrote
   * successfully in the run (`filesWrittenFromMessages`). Absent: `file_written:` leaves
   * are UNVERIFIED.
   */
  filesWritten?: readonly string[];
  /** Validator for `json_valid:` (default: the contract registry's `validate`). */
  contractValidate?: ContractValidator;
}

/** Whether a value has the shape of a `bashRuns` entry (the channel is read from untyped state). */
export function isBashRun(value: unknown): value is BashRunEvidence {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.command === "string" &&
    typeof v.commandTruncated === "boolean" &&
    (typeof v.exitCode === "number" || v.exitCode === null) &&
    typeof v.outputTail === "string" &&
    typeof v.persistentShell === "boolean"
  );
}
