import { readFileSync, readdirSync } from "node:fs";

/** Linux reports CPU times in /proc in USER_HZ ticks, 100 a second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

/** What a process and its descendants use, read from /proc (Linux). */
export interface TreeUsage {
  /** User + system CPU of every live process of the tree, plus what their reaped children used. */
  cpuSeconds: number;
  /** The sum of the resident set sizes (shared pages count once per process). */
  rssBytes: number;
  processes: number;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** The children of every thread of `pid` (`/proc/PID/task/TID/children`). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tasks) {
    const text = readOrUndefined(`/proc/${pid}/task/${tid}/children`);
    if (text === undefined) continue;
    for (const word of text.split(/\s+/)) if (word !== "") children.push(Number(word));
  }
  return children;
}

/**
 * Walk the tree under `rootPid` (through the kernel's children lists) and add up its CPU
 * time and resident memory. A process that left the tree (its parent died and it was
 * re-parented) is not counted. `undefined` when the root is gone or /proc is not there.
 */
export function treeUsage(rootPid: number): TreeUsage | undefined {
  const seen = new Set<number>();
  const pending = [rootPid];
  let ticks = 0;
  let rssKiB = 0;
  while (pending.length > 0) {
    const pid = pending.pop()!;
    if (seen.has(pid)) continue;
    const stat = readOrUndefined(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    seen.add(pid);
    // Fields after the command name `(…)`, which may itself hold spaces: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readOrUndefined(`/proc/${pid}/status`) ?? "");
    if (rss !== null) rssKiB += Number(rss[1]);
    pending.push(...childrenOf(pid));
  }
  if (seen.size === 0) return undefined;
  return { cpuSeconds: ticks / TICKS_PER_SECOND, rssBytes: rssKiB * 1024, processes: seen.size };
}
