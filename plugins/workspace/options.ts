/** One scripted bash answer: the first entry whose `match` matches the command wins. */
export interface ScriptedBashEntry {
  /** A substring of the command, or a regex written `/source/flags`. */
  match: string;
  output: string;
  exitCode?: number;
}

/** The workspace plugin's options, defaults applied. */
export interface WorkspaceOptions {
  root: string;
  bash: "on" | "off";
  scriptedBash?: readonly ScriptedBashEntry[];
  maxOutputChars: number;
  /** The most a call may ask for with `timeoutSeconds` (larger requests are cut to it). */
  maxTimeoutSeconds: number;
  /** CPU seconds of a command's whole process tree. */
  maxCpuSeconds: number;
  /** Resident memory of a command's whole process tree, in MiB. */
  maxMemoryMiB: number;
  /** A command's watchdog kills it when the worker has not renewed it for this long. */
  watchdogDeadlineMs: number;
}

export const DEFAULT_ROOT = ".keel/workspaces";
export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;
export const DEFAULT_MAX_TIMEOUT_SECONDS = 600;
export const DEFAULT_MAX_CPU_SECONDS = 1200;
export const DEFAULT_MAX_MEMORY_MIB = 4096;
export const DEFAULT_WATCHDOG_DEADLINE_MS = 2000;

/** The smallest `watchdogDeadlineMs` the config schema accepts. */
export const MIN_WATCHDOG_DEADLINE_MS = 50;

/**
 * A renewal deadline that kills a frozen worker's commands before its runs can be taken
 * over: half of what the lease leaves after its last renewal (`leaseTtlMs − heartbeatMs`),
 * at most the default, at least the schema's minimum.
 */
export function watchdogDeadlineForLease(lease: { leaseTtlMs: number; heartbeatMs: number }): number {
  const half = Math.floor((lease.leaseTtlMs - lease.heartbeatMs) / 2);
  return Math.max(MIN_WATCHDOG_DEADLINE_MS, Math.min(DEFAULT_WATCHDOG_DEADLINE_MS, half));
}

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * Read the options from a tool's or hook's `config`. The kernel validates them and
 * applies defaults when the stack is built; the defaults are applied again here so
 * the helpers also work with a partial config (tests, the scenario runner).
 */
export function readWorkspaceOptions(config: Readonly<Record<string, unknown>> | undefined): WorkspaceOptions {
  const c = config ?? {};
  const root = typeof c.root === "string" && c.root.length > 0 ? c.root : DEFAULT_ROOT;
  const bash = c.bash === "off" ? "off" : "on";
  const maxOutputChars =
    typeof c.maxOutputChars === "number" && Number.isInteger(c.maxOutputChars) && c.maxOutputChars > 0
      ? c.maxOutputChars
      : DEFAULT_MAX_OUTPUT_CHARS;
  const options: WorkspaceOptions = {
    root,
    bash,
    maxOutputChars,
    maxTimeoutSeconds: positive(c.maxTimeoutSeconds, DEFAULT_MAX_TIMEOUT_SECONDS),
    maxCpuSeconds: positive(c.maxCpuSeconds, DEFAULT_MAX_CPU_SECONDS),
    maxMemoryMiB: positive(c.maxMemoryMiB, DEFAULT_MAX_MEMORY_MIB),
    watchdogDeadlineMs: positive(c.watchdogDeadlineMs, DEFAULT_WATCHDOG_DEADLINE_MS),
  };
  if (Array.isArray(c.scriptedBash)) options.scriptedBash = c.scriptedBash as ScriptedBashEntry[];
  return options;
}
