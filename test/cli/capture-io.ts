import type { CommandIO } from "../../tools/cli/io.js";

export type CapturedIO = CommandIO & { stdout: string[]; stderr: string[]; json(): any };

/** A CommandIO that collects what a command prints, for assertions. */
export function captureIO(cwd = process.cwd()): CapturedIO {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    cwd,
    json: () => JSON.parse(stdout.join("\n")),
  };
}
