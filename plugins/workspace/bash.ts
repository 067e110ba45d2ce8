import type { KeelTool, ToolOutput } from "../../kernel/plugin/types.js";
import { bashResult } from "./bash-result.js";
import { readWorkspaceOptions, type ScriptedBashEntry } from "./options.js";
import { ensureWorkspace } from "./paths.js";
import { runRealBash } from "./real-bash.js";
import { errorResult, inWorkspace } from "./tool-results.js";
import { assertWriteAllowed } from "./write-log.js";

export { isBashArtifact, type BashArtifact } from "./bash-result.js";
export { runRealBash, type RealBashOptions } from "./real-bash.js";

export const DEFAULT_TIMEOUT_SECONDS = 60;

export const bashTool: KeelTool = {
  name: "bash",
  description:
    "Run a command with `bash -c` in the workspace directory (a fresh shell each call; nothing persists between calls except files). Returns the combined stdout/stderr and a final line `exit code: N`.",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["command"],
    properties: {
      command: { type: "string", minLength: 1, description: "The shell command." },
      timeoutSeconds: {
        type: "number",
        exclusiveMinimum: 0,
        default: DEFAULT_TIMEOUT_SECONDS,
        description: "Kill the command (and everything it started) after this many seconds.",
      },
    },
  },
  async invoke(args, ctx) {
    if (typeof args.command !== "string" || args.command.length === 0) return errorResult("`command` must be a non-empty string");
    const timeoutSeconds = args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    if (typeof timeoutSeconds !== "number" || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
      return errorResult("`timeoutSeconds` must be a number > 0");
    }
    const command = args.command;
    const options = readWorkspaceOptions(ctx.config);
    // Scripted answers win over `bash: off`: a scenario's script never runs anything.
    if (options.scriptedBash !== undefined) return runScriptedBash(command, options.scriptedBash);
    if (options.bash === "off") return errorResult('bash is disabled in this workspace (option `bash` is "off")');
    if (ctx.signal.aborted) return errorResult("bash was not started: the run was cancelled");
    return inWorkspace(ctx, ".", async (dir) => {
      // A command may write anywhere in the workspace: it starts only while the lease holds.
      await assertWriteAllowed(ctx, "bash", ".");
      return runRealBash(command, {
        cwd: ensureWorkspace(dir),
        timeoutMs: Math.min(timeoutSeconds, options.maxTimeoutSeconds) * 1000,
        requestedTimeoutSeconds: timeoutSeconds,
        maxOutputChars: options.maxOutputChars,
        signal: ctx.signal,
        cpuSeconds: options.maxCpuSeconds,
        memoryBytes: options.maxMemoryMiB * 2 ** 20,
        watchdogDeadlineMs: options.watchdogDeadlineMs,
      });
    });
  },
};

/** The first entry whose `match` matches wins: a substring, or a regex written `/source/flags`. */
export function runScriptedBash(command: string, script: readonly ScriptedBashEntry[]): ToolOutput {
  for (const entry of script) {
    let matches: boolean;
    try {
      matches = scriptMatches(entry.match, command);
    } catch (error) {
      return errorResult(`scripted bash: invalid regex \`${entry.match}\` (${(error as Error).message})`);
    }
    if (matches) {
      return bashResult({ kind: "bash", command, exitCode: entry.exitCode ?? 0, output: entry.output, timedOut: false });
    }
  }
  return bashResult({ kind: "bash", command, exitCode: 127, output: `scripted bash: no match for \`${command}\``, timedOut: false });
}

function scriptMatches(match: string, command: string): boolean {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(match);
  if (regex === null) return command.includes(match);
  // `g` and `y` make test() stateful across calls; matching is a yes/no question here.
  return new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, "")).test(command);
}
