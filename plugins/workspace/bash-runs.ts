import type { BashArtifact } from "./bash-result.js";
import { COMMAND_CHARS, OUTPUT_TAIL_CHARS } from "./manifest.js";

/** One entry of the `bashRuns` channel. */
export interface BashRun {
  command: string;
  commandTruncated: boolean;
  exitCode: number | null;
  outputTail: string;
  /** True when `outputTail` is shorter than the output it was cut from. */
  truncated: boolean;
  timedOut: boolean;
  /** Always false: every call is a fresh `bash -c`, so no state carries over between runs. */
  persistentShell: false;
  at: string;
  toolCallId: string;
}

/** The record of one bash call: the command's first 500 characters, the output's last 1,000. */
export function toBashRun(artifact: BashArtifact, toolCallId: string, at: string): BashRun {
  return {
    command: artifact.command.slice(0, COMMAND_CHARS),
    commandTruncated: artifact.command.length > COMMAND_CHARS,
    exitCode: artifact.exitCode,
    outputTail: artifact.output.slice(-OUTPUT_TAIL_CHARS),
    truncated: artifact.output.length > OUTPUT_TAIL_CHARS,
    timedOut: artifact.timedOut,
    persistentShell: false,
    at,
    toolCallId,
  };
}
