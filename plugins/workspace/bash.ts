import { spawn } from "node:child_process";
import type { KeelTool, ToolOutput } from "../../kernel/plugin/types.js";
import { readWorkspaceOptions, type ScriptedBashEntry } from "./options.js";
import { ensureWorkspace } from "./paths.js";
import { errorResult, inWorkspace } from "./tool-results.js";

export const DEFAULT_TIMEOUT_SECONDS = 60;
/** How long output may still arrive after the shell exited before the pipes are closed. */
const EXIT_GRACE_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What the bash tool attaches to its result; the plugin's hook turns it into a `bashRuns` entry. */
export interface BashArtifact {
  kind: "bash";
  command: string;
  /** null when the process was killed by a signal (timeout, cancellation) or never started. */
  exitCode: number | null;
  /** The combined stdout+stderr, in arrival order (without the `exit code:` line). */
  output: string;
  timedOut: boolean;
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
    return inWorkspace(ctx, ".", async (dir) =>
      runRealBash(command, {
        cwd: ensureWorkspace(dir),
        // setTimeout fires at once beyond 2^31-1 ms; about 24 days is "no timeout" enough.
        timeoutMs: Math.min(timeoutSeconds * 1000, MAX_TIMER_MS),
        maxOutputChars: options.maxOutputChars,
        signal: ctx.signal,
      }),
    );
  },
};

/** The tool result: output, a note when the process was killed, and the final `exit code:` line. */
function bashResult(artifact: BashArtifact, note?: string, status: "success" | "error" = "success"): ToolOutput {
  const lines = [artifact.output === "" || artifact.output.endsWith("\n") ? artifact.output : `${artifact.output}\n`];
  if (note !== undefined) lines.push(`[${note}]\n`);
  lines.push(`exit code: ${artifact.exitCode === null ? "null" : artifact.exitCode}`);
  return { content: lines.join(""), status, artifact };
}

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

export interface RealBashOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  signal: AbortSignal;
}

/**
 * Run `bash -c command` in its own process group. stdout and stderr are collected into
 * one text in arrival order (the last `maxOutputChars` kept). The timeout and the
 * AbortSignal kill the whole group; so does the command's own exit, so no background
 * process outlives its call (each call is a fresh, non-persistent shell).
 */
export function runRealBash(command: string, options: RealBashOptions): Promise<ToolOutput> {
  return new Promise((resolve) => {
    let output = "";
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    let settled = false;

    const child = spawn("bash", ["-c", command], { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const append = (chunk: string) => {
      output += chunk;
      // Trim in batches so a chatty command costs linear time, not quadratic.
      if (output.length > options.maxOutputChars * 2) {
        dropped += output.length - options.maxOutputChars;
        output = output.slice(-options.maxOutputChars);
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (result: ToolOutput) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      resolve(result);
    };

    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", append);
    child.stderr.on("data", append);
    child.on("exit", () => {
      clearTimeout(timer);
      killGroup();
      // A process that left the group (setsid) could hold the pipes open forever; stop waiting for it.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, EXIT_GRACE_MS).unref();
    });
    child.on("error", (error) => {
      killGroup();
      finish(errorResult(`bash could not be started: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      if (output.length > options.maxOutputChars) {
        dropped += output.length - options.maxOutputChars;
        output = output.slice(-options.maxOutputChars);
      }
      if (dropped > 0) output = `[${dropped} earlier characters of output dropped]\n${output}`;
      const artifact: BashArtifact = { kind: "bash", command, exitCode: code, output, timedOut };
      const seconds = options.timeoutMs / 1000;
      if (timedOut) finish(bashResult(artifact, `timed out after ${seconds} s; the command and its process group were killed`, "error"));
      else if (cancelled) finish(bashResult(artifact, "cancelled: the run was aborted; the command and its process group were killed", "error"));
      else if (signal !== null) finish(bashResult(artifact, `killed by ${signal}`));
      else finish(bashResult(artifact));
    });
  });
}
