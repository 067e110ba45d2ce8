/**
 * What the worker and a command's watchdog (`command-watchdog.ts`) say to each other: on
 * the watchdog's fd 3 the worker writes `.` (renewal), `k` (kill) and `g` (go: the
 * answer to `started`); on fd 4 the
 * watchdog reports with one JSON object per line.
 */

/** The watchdog's only argument (JSON). */
export interface WatchdogSpec {
  command: string;
  cwd: string;
  /** Kill the group when no renewal arrived for this long. */
  deadlineMs: number;
  /** Wall time of the command. */
  timeoutMs: number;
  /** CPU seconds of the whole tree. */
  cpuSeconds: number;
  /** Resident memory of the whole tree. */
  memoryBytes: number;
  /** How often the tree's CPU and memory are read. */
  sampleMs: number;
}

/** Why the watchdog killed the command's process group. */
export type KillReason = "timeout" | "cpu_limit" | "memory_limit" | "cancelled" | "watchdog" | "signal";

export type WatchdogMessage =
  | { event: "started"; pid: number }
  | { event: "killed"; reason: KillReason; detail: string }
  | { event: "exit"; code: number | null; signal: string | null }
  | { event: "error"; message: string };

export const RENEW = ".";
export const KILL = "k";
/** The worker's answer to `started`: it knows the group now, the command may run. */
export const GO = "g";
