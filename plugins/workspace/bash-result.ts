import type { ToolOutput } from "../../kernel/plugin/types.js";
import type { KillReason } from "./watchdog-protocol.js";

/** What the bash tool attaches to its result; the plugin's hook turns it into a `bashRuns` entry. */
export interface BashArtifact {
  kind: "bash";
  command: string;
  /** null when the process was killed by a signal (timeout, cancellation, a limit) or never started. */
  exitCode: number | null;
  /** The combined stdout+stderr, in arrival order (without the `exit code:` line). */
  output: string;
  timedOut: boolean;
  /** Present when the command's process group was killed: why. */
  killed?: KillReason | "watchdog_lost";
}

export function isBashArtifact(value: unknown): value is BashArtifact {
  if (typeof value !== "object" || value === null) return false;
  const a = value as Record<string, unknown>;
  return (
    a.kind === "bash" &&
    typeof a.command === "string" &&
    (a.exitCode === null || (typeof a.exitCode === "number" && Number.isInteger(a.exitCode))) &&
    typeof a.output === "string" &&
    typeof a.timedOut === "boolean"
  );
}

/** The stable code at the start of the note when the group was killed (kernel/errors.ts). */
export const KILL_CODES: Record<NonNullable<BashArtifact["killed"]>, string> = {
  timeout: "KEEL_ERR_BASH_TIMEOUT",
  cpu_limit: "KEEL_ERR_BASH_CPU_LIMIT",
  memory_limit: "KEEL_ERR_BASH_MEMORY_LIMIT",
  cancelled: "KEEL_ERR_BASH_CANCELLED",
  watchdog: "KEEL_ERR_BASH_WATCHDOG",
  signal: "KEEL_ERR_BASH_WATCHDOG",
  watchdog_lost: "KEEL_ERR_BASH_WATCHDOG",
};

/** The tool result: output, a note when the process was killed, and the final `exit code:` line. */
export function bashResult(artifact: BashArtifact, note?: string, status: "success" | "error" = "success"): ToolOutput {
  const lines = [artifact.output === "" || artifact.output.endsWith("\n") ? artifact.output : `${artifact.output}\n`];
  if (note !== undefined) lines.push(`[${note}]\n`);
  lines.push(`exit code: ${artifact.exitCode === null ? "null" : artifact.exitCode}`);
  return { content: lines.join(""), status, artifact };
}
