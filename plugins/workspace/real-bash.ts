import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import type { Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolOutput } from "../../kernel/plugin/types.js";
import { bashResult, KILL_CODES, type BashArtifact } from "./bash-result.js";
import { errorResult } from "./tool-results.js";
import { GO, KILL, RENEW, type WatchdogMessage, type WatchdogSpec } from "./watchdog-protocol.js";

/** How long output may still arrive after the watchdog exited before the pipes are closed. */
const EXIT_GRACE_MS = 1000;
/** How often the watchdog reads the command tree's CPU time and memory. */
const SAMPLE_MS = 200;
/** setTimeout fires at once beyond 2^31-1 ms; about 24 days is "no timeout" enough. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RealBashOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  signal: AbortSignal;
  cpuSeconds: number;
  memoryBytes: number;
  /** The watchdog kills the group when the worker has not renewed it for this long; it renews every quarter of it. */
  watchdogDeadlineMs: number;
  /** Shown in the timeout note when the call asked for more than the workspace allows. */
  requestedTimeoutSeconds?: number;
}

/** Commands still running in this process (their watchdog, and their group once known): killed when the process exits. */
const liveCommands = new Set<{ watchdogPid: number | undefined; pgid: number | undefined }>();
let exitHookInstalled = false;

function killGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous on purpose: `exit` listeners cannot wait. The watchdogs would notice the
  // closed pipe anyway; this makes it immediate.
  // A group this process has not heard of yet is killed by its watchdog on SIGTERM.
  process.on("exit", () => {
    for (const command of liveCommands) {
      killGroup(command.pgid);
      if (command.watchdogPid !== undefined) {
        try {
          process.kill(command.watchdogPid, "SIGTERM");
        } catch {
          // already gone
        }
      }
    }
  });
}

/** The files the watchdog is made of (it imports only Node's modules and these). */
const WATCHDOG_FILES = ["command-watchdog", "process-tree", "watchdog-protocol"];
let watchdogStart: { args: string[]; cwd?: string } | undefined;

/**
 * How to start the watchdog. From `dist/`: the compiled `command-watchdog.js` next to this
 * module. From sources (vitest, tsx): the build's copy of it when the build is newer than
 * the watchdog's sources, else its `.ts` file through tsx's loader (resolved from the
 * package root; several times slower to start).
 */
function watchdogCommand(): { args: string[]; cwd?: string } {
  if (watchdogStart !== undefined) return watchdogStart;
  const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
  const sibling = here("./command-watchdog.js");
  if (existsSync(sibling)) return (watchdogStart = { args: [sibling] });
  const root = here("../../");
  const built = path.join(root, "dist", "plugins", "workspace", "command-watchdog.js");
  const newestSource = Math.max(...WATCHDOG_FILES.map((name) => statSync(here(`./${name}.ts`)).mtimeMs));
  const builtAt = existsSync(built) ? Math.min(...WATCHDOG_FILES.map((name) => statSync(path.join(path.dirname(built), `${name}.js`)).mtimeMs)) : 0;
  if (builtAt > newestSource) return (watchdogStart = { args: [built] });
  return (watchdogStart = { args: ["--import", "tsx", here("./command-watchdog.ts")], cwd: root });
}

/**
 * Run `bash -c command` under its own watchdog process, in a new process group. stdout
 * and stderr are collected into one text in arrival order (the last `maxOutputChars`
 * kept). Cancellation (the AbortSignal), the timeout, the CPU and memory limits, a
 * missed renewal, the death of this process and the shell's own exit kill the whole
 * group; no process of the command outlives its call.
 */
export function runRealBash(command: string, options: RealBashOptions): Promise<ToolOutput> {
  return new Promise((resolve) => {
    let output = "";
    let dropped = 0;
    let settled = false;
    let pgid: number | undefined;
    let killed: { reason: NonNullable<BashArtifact["killed"]>; detail: string } | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let startError: string | undefined;

    const spec: WatchdogSpec = {
      command,
      cwd: options.cwd,
      deadlineMs: options.watchdogDeadlineMs,
      timeoutMs: Math.min(options.timeoutMs, MAX_TIMER_MS),
      cpuSeconds: options.cpuSeconds,
      memoryBytes: options.memoryBytes,
      sampleMs: SAMPLE_MS,
    };
    installExitHook();
    const start = watchdogCommand();
    const watchdog = spawn(process.execPath, [...start.args, JSON.stringify(spec)], {
      cwd: start.cwd ?? options.cwd,
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
      // Its own session: a stop or kill sent to the worker's process group (a terminal's
      // Ctrl-Z, `kill -STOP -PGID`) does not reach the watchdog, which then notices.
      detached: true,
    });
    // fd 3 carries renewals and kills to the watchdog, fd 4 its reports back: a write that
    // fails on a dead watchdog's pipe cannot discard reports still waiting to be read.
    const live = { watchdogPid: watchdog.pid, pgid: undefined as number | undefined };
    liveCommands.add(live);
    const control = watchdog.stdio[3] as Socket;
    const reports = watchdog.stdio[4] as Socket;
    control.on("error", () => undefined); // the watchdog died: its exit is handled below.
    reports.on("error", () => undefined);

    const renew = setInterval(() => {
      if (control.writable) control.write(RENEW);
    }, Math.max(1, Math.floor(options.watchdogDeadlineMs / 4)));

    const onAbort = () => {
      if (killed === undefined && exit === undefined) killed = { reason: "cancelled", detail: "the run was aborted" };
      if (control.writable) control.write(KILL);
      killGroup(pgid);
    };
    options.signal.addEventListener("abort", onAbort, { once: true });

    let pending = "";
    reports.setEncoding("utf8");
    reports.on("data", (chunk: string) => {
      pending += chunk;
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        const message = parseReport(line);
        if (message === undefined || exit !== undefined) continue;
        if (message.event === "started") {
          pgid = message.pid;
          live.pgid = pgid;
          // Open the command's gate only now that this process can kill its group itself.
          if (options.signal.aborted) onAbort();
          else if (control.writable) control.write(GO);
        } else if (message.event === "killed") {
          // A cancellation seen here first keeps its own wording.
          if (killed === undefined) killed = { reason: message.reason, detail: message.detail };
        } else if (message.event === "exit") {
          exit = { code: message.code, signal: message.signal };
        } else {
          startError = message.message;
        }
      }
    });

    const append = (chunk: string) => {
      output += chunk;
      // Trim in batches so a chatty command costs linear time, not quadratic.
      if (output.length > options.maxOutputChars * 2) {
        dropped += output.length - options.maxOutputChars;
        output = output.slice(-options.maxOutputChars);
      }
    };
    watchdog.stdout!.setEncoding("utf8");
    watchdog.stderr!.setEncoding("utf8");
    watchdog.stdout!.on("data", append);
    watchdog.stderr!.on("data", append);

    const finish = (result: ToolOutput) => {
      if (settled) return;
      settled = true;
      clearInterval(renew);
      options.signal.removeEventListener("abort", onAbort);
      liveCommands.delete(live);
      control.destroy();
      reports.destroy();
      resolve(result);
    };

    watchdog.on("exit", () => {
      clearInterval(renew);
      // The watchdog kills the group before it exits; if it died instead, do it here.
      if (exit === undefined) killGroup(pgid);
      // A process that left the group (setsid) could hold the pipes open forever; stop waiting for it.
      setTimeout(() => {
        watchdog.stdout!.destroy();
        watchdog.stderr!.destroy();
      }, EXIT_GRACE_MS).unref();
    });
    watchdog.on("error", (error) => {
      killGroup(pgid);
      finish(errorResult(`bash could not be started: the command's watchdog did not start (${error.message})`));
    });
    watchdog.on("close", (watchdogCode, watchdogSignal) => {
      if (startError !== undefined) return finish(errorResult(startError));
      if (output.length > options.maxOutputChars) {
        dropped += output.length - options.maxOutputChars;
        output = output.slice(-options.maxOutputChars);
      }
      if (dropped > 0) output = `[${dropped} earlier characters of output dropped]\n${output}`;
      if (exit === undefined && killed === undefined) {
        killed = {
          reason: "watchdog_lost",
          detail: `the command's watchdog exited unexpectedly (${watchdogSignal ?? `code ${watchdogCode}`})`,
        };
      }
      const artifact: BashArtifact = {
        kind: "bash",
        command,
        exitCode: exit?.code ?? null,
        output,
        timedOut: killed?.reason === "timeout",
      };
      if (killed === undefined) {
        if (exit?.signal != null) return finish(bashResult(artifact, `killed by ${exit.signal}`));
        return finish(bashResult(artifact));
      }
      artifact.killed = killed.reason;
      finish(bashResult(artifact, `${KILL_CODES[killed.reason]}: ${killNote(killed.reason, killed.detail, options)}; the command and its process group were killed`, "error"));
    });
  });
}

/** One report line of the watchdog; anything else is ignored (it must never throw in the worker). */
function parseReport(line: string): WatchdogMessage | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null && typeof (value as { event?: unknown }).event === "string" ? (value as WatchdogMessage) : undefined;
  } catch {
    return undefined;
  }
}

function killNote(reason: NonNullable<BashArtifact["killed"]>, detail: string, options: RealBashOptions): string {
  if (reason === "timeout") {
    const seconds = options.timeoutMs / 1000;
    const requested = options.requestedTimeoutSeconds;
    return requested !== undefined && requested > seconds
      ? `timed out after ${seconds} s (the call asked for ${requested} s; the workspace allows at most ${seconds} s)`
      : `timed out after ${seconds} s`;
  }
  if (reason === "cancelled") return `cancelled: ${detail}`;
  return detail;
}
