/**
 * The per-command watchdog: `node command-watchdog.js SPEC_JSON`, started by the bash tool
 * with fd 3 and fd 4 pipes from and to the worker. It starts `bash -c COMMAND` as the leader of a new
 * process group (and session), the command writing straight into the watchdog's stdout
 * and stderr (the worker's pipes), and kills the whole group (SIGKILL) when
 *
 * - the worker's end of fd 3 closes (the worker exited or was killed: Node has no
 *   parent-death signal, the socket's EOF is one),
 * - no renewal arrived for `deadlineMs` (the worker is stopped or stuck),
 * - the worker asks for it (`k`: cancellation),
 * - the wall time, the tree's CPU seconds or its resident memory exceed their limits,
 * - the watchdog gets SIGTERM, SIGINT or SIGHUP,
 * - the command's shell exits (what it left running in its group dies with it).
 *
 * The command starts only once the worker knows its group (see GATE). It then reports
 * the shell's exit and exits itself. No imports beyond Node's and two
 * small modules of this directory, so it starts fast.
 */
import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { treeUsage } from "./process-tree.js";
import { GO, KILL, type KillReason, type WatchdogMessage, type WatchdogSpec } from "./watchdog-protocol.js";

const spec = JSON.parse(process.argv[2] ?? "{}") as WatchdogSpec;
/** fd 3: renewals and kill requests from the worker. fd 4: reports to it (a separate pipe, so a failed write on one cannot discard what waits on the other). */
const control = new Socket({ fd: 3, readable: true, writable: false });
const reports = new Socket({ fd: 4, readable: false, writable: true });
control.on("error", () => undefined); // a dead worker: ECONNRESET; the EOF handling below covers it.
reports.on("error", () => undefined); // a dead worker: EPIPE.

let killedFor: KillReason | undefined;

function send(message: WatchdogMessage, then?: () => void): void {
  if (reports.destroyed || !reports.writable) {
    then?.();
    return;
  }
  reports.write(`${JSON.stringify(message)}\n`, () => then?.());
}

// Before the command starts: a signal that arrives while it runs must never find the default action (exit, leaving the group behind).
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.on(signal, () => stop("signal", `the command's watchdog got ${signal}`));
}

/**
 * The command waits at a gate (its fd 3) until the worker has heard of its group (`g`):
 * a command never runs before the worker could kill its group itself. A gate that closes
 * unopened (the watchdog died) runs nothing.
 */
const GATE = 'read -r -u 3 _ || exit 125; exec 3<&-; exec bash -c "$1"';
const child = spawn("bash", ["-c", GATE, "bash", spec.command], { cwd: spec.cwd, detached: true, stdio: ["ignore", 1, 2, "pipe"] });
const pgid = child.pid;
const gate = child.stdio[3] as Socket | null;
gate?.on("error", () => undefined); // the command died before the gate opened

function killGroup(): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: nothing of the group is left.
  }
}

/** The first reason wins; the group is killed every time (killing it twice is harmless). */
function stop(reason: KillReason, detail: string): void {
  if (killedFor === undefined) {
    killedFor = reason;
    send({ event: "killed", reason, detail });
  }
  killGroup();
}

const timers: NodeJS.Timeout[] = [];
const deadline = setTimeout(
  () => stop("watchdog", `the worker did not renew the command's watchdog within ${spec.deadlineMs} ms (stopped, stuck or gone)`),
  spec.deadlineMs,
);
timers.push(deadline);

control.on("data", (chunk: Buffer) => {
  deadline.refresh();
  if (chunk.includes(KILL)) stop("cancelled", "the worker cancelled the command");
  else if (chunk.includes(GO) && gate !== null && !gate.destroyed) gate.end("go\n");
});
control.on("end", () => stop("watchdog", "the worker closed the command's control pipe (it exited or died)"));
control.on("close", () => stop("watchdog", "the worker closed the command's control pipe (it exited or died)"));

child.on("error", (error) => {
  for (const timer of timers) clearTimeout(timer);
  send({ event: "error", message: `bash could not be started: ${error.message}` }, () => process.exit(1));
});

if (pgid !== undefined) {
  send({ event: "started", pid: pgid });
  timers.push(
    setTimeout(() => stop("timeout", `the command ran for ${spec.timeoutMs / 1000} s`), spec.timeoutMs),
    setInterval(() => {
      const usage = treeUsage(pgid);
      if (usage === undefined) return;
      if (usage.cpuSeconds > spec.cpuSeconds) {
        stop("cpu_limit", `the command used ${usage.cpuSeconds.toFixed(2)} CPU seconds (limit ${spec.cpuSeconds})`);
      } else if (usage.rssBytes > spec.memoryBytes) {
        const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
        stop("memory_limit", `the command used ${mib(usage.rssBytes)} MiB of memory (limit ${mib(spec.memoryBytes)} MiB)`);
      }
    }, spec.sampleMs),
  );
}

child.on("exit", (code, signal) => {
  for (const timer of timers) clearTimeout(timer);
  // Whatever the shell left running in its group goes with it.
  killGroup();
  send({ event: "exit", code, signal }, () => process.exit(0));
});
