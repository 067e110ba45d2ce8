import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../../kernel/plugin/types.js";
import { packageRoot } from "../../../kernel/package-root.js";
import { bashTool, watchdogDeadlineForLease } from "../../../plugins/workspace/index.js";
import { treeUsage } from "../../../plugins/workspace/process-tree.js";

const WORKER = fileURLToPath(new URL("./fixtures/bash-worker.ts", import.meta.url));

let root: string;
let dir: string;
/** Every process a test started, stopped by its id afterwards. */
const started: ChildProcess[] = [];
const pidsToReap: number[] = [];

function context(config: Record<string, unknown>, signal = new AbortController().signal): ToolContext {
  return {
    threadId: "t-worker",
    runId: "r1",
    agent: "lead",
    turn: 1,
    toolCallId: "c1",
    config: { root, ...config },
    signal,
    now: () => "2025-01-01T00:00:00.000Z",
    port: () => {
      throw new Error("no ports here");
    },
  };
}

/** Running, not a zombie: a killed orphan stays a zombie until its new parent reaps it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = statOf(pid);
  return stat !== undefined && stat[0] !== "Z";
}

/** The /proc stat fields after the command name (state first), or undefined. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Poll until `check` holds; false when it did not within `limitMs` (a bound, not a measurement). */
async function waitFor(check: () => boolean, limitMs = 10_000): Promise<boolean> {
  for (const end = Date.now() + limitMs; Date.now() < end; ) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

async function pidFrom(file: string): Promise<number> {
  const full = path.join(dir, file);
  // A worker under tsx on a loaded machine can take seconds to start.
  expect(await waitFor(() => existsSync(full) && readFileSync(full, "utf8").endsWith("\n"), 20_000)).toBe(true);
  const pid = Number(readFileSync(full, "utf8"));
  pidsToReap.push(pid);
  return pid;
}

/** A worker process running one bash command through the tool; its stdout is the result JSON. */
function startWorker(
  command: string,
  config: Record<string, unknown>,
  ownGroup = false,
): { child: ChildProcess; result: Promise<Record<string, unknown>> } {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, root, command, JSON.stringify(config)], {
    cwd: packageRoot(),
    stdio: ["ignore", "pipe", "inherit"],
    detached: ownGroup,
  });
  started.push(child);
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.on("close", () => {
      try {
        resolve(out === "" ? {} : (JSON.parse(out) as Record<string, unknown>));
      } catch (error) {
        reject(error);
      }
    });
  });
  return { child, result };
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-watchdog-"));
  dir = path.join(root, "t-worker");
});
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, "SIGCONT");
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  for (const pid of pidsToReap.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone (the expected case)
    }
  }
  rmSync(root, { recursive: true, force: true });
});

describe("no command outlives its call", () => {
  it("cancellation kills the shell and its grandchild (sleep 30 & sleep 30)", async () => {
    const controller = new AbortController();
    const call = bashTool.invoke({ command: "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 30" }, context({}, controller.signal));
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    expect(isAlive(shell) && isAlive(background)).toBe(true);
    controller.abort();
    const result = (await call) as { content: string; status: string; artifact: { killed?: string; exitCode: number | null } };
    expect(result.status).toBe("error");
    expect(result.artifact).toMatchObject({ killed: "cancelled", exitCode: null });
    expect(result.content).toBe(
      "[KEEL_ERR_BASH_CANCELLED: cancelled: the run was aborted; the command and its process group were killed]\nexit code: null",
    );
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
  });

  it("a SIGKILLed worker's command is killed by its watchdog: the file it would write never appears", async () => {
    // A long deadline: the closed pipe (EOF), not a missed renewal, is what kills it here.
    const { child, result } = startWorker("echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 1.5; echo late > late.txt", {
      watchdogDeadlineMs: 20_000,
    });
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    process.kill(child.pid!, "SIGKILL");
    await result;
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
    // Past the moment the command would have written it.
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(path.join(dir, "late.txt"))).toBe(false);
  });

  it("a SIGSTOPped worker's command is killed at the renewal deadline; after SIGCONT the worker reports it", async () => {
    const { child, result } = startWorker("echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 2; echo late > late.txt", {
      watchdogDeadlineMs: 300,
    });
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    process.kill(child.pid!, "SIGSTOP");
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(path.join(dir, "late.txt"))).toBe(false);
    process.kill(child.pid!, "SIGCONT");
    const output = (await result) as { content: string; status: string; artifact: { killed?: string } };
    expect(output.status).toBe("error");
    expect(output.artifact.killed).toBe("watchdog");
    expect(output.content).toBe(
      "[KEEL_ERR_BASH_WATCHDOG: the worker did not renew the command's watchdog within 300 ms (stopped, stuck or gone); the command and its process group were killed]\nexit code: null",
    );
  });

  it("a SIGSTOP sent to the worker's whole process group does not stop the watchdog: the command is killed", async () => {
    const { child, result } = startWorker("echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 2; echo late > late.txt", { watchdogDeadlineMs: 300 }, true);
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    process.kill(-child.pid!, "SIGSTOP");
    try {
      expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
    } finally {
      process.kill(-child.pid!, "SIGCONT");
    }
    const output = (await result) as { artifact: { killed?: string } };
    expect(output.artifact.killed).toBe("watchdog");
    expect(existsSync(path.join(dir, "late.txt"))).toBe(false);
  });

  it("a worker that exits (process.exit) while its command runs takes the command's group with it", async () => {
    // process.exit runs the tool's exit hook; the watchdog's EOF would also do it.
    const { child, result } = startWorker("echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 30", { watchdogDeadlineMs: 20_000 });
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    child.kill("SIGUSR2"); // the worker calls process.exit(0)
    await result;
    const gone = await waitFor(() => !isAlive(shell) && !isAlive(background));
    expect(gone, `shell ${statOf(shell)?.slice(0, 3).join(" ")}, background ${statOf(background)?.slice(0, 3).join(" ")}`).toBe(true);
  });

  it("a signalled watchdog kills the group and says so", async () => {
    const call = bashTool.invoke({ command: "echo $$ > sh.pid; sleep 30" }, context({}));
    const shell = await pidFrom("sh.pid");
    const watchdog = Number(statOf(shell)![1]);
    expect(readFileSync(`/proc/${watchdog}/cmdline`, "utf8")).toContain("command-watchdog");
    process.kill(watchdog, "SIGTERM");
    const result = (await call) as { content: string; artifact: { killed?: string } };
    expect(result.artifact.killed).toBe("signal");
    expect(result.content).toBe(
      "[KEEL_ERR_BASH_WATCHDOG: the command's watchdog got SIGTERM; the command and its process group were killed]\nexit code: null",
    );
    expect(isAlive(shell)).toBe(false);
  });
});

describe("a watchdog that dies", () => {
  it("is noticed by the worker, which kills the group it was told about", async () => {
    const call = bashTool.invoke({ command: "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 30" }, context({}));
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    const watchdog = Number(statOf(shell)![1]);
    expect(readFileSync(`/proc/${watchdog}/cmdline`, "utf8")).toContain("command-watchdog");
    process.kill(watchdog, "SIGKILL");
    const result = (await call) as { content: string; status: string; artifact: { killed?: string } };
    expect(result.status).toBe("error");
    expect(result.artifact.killed).toBe("watchdog_lost");
    expect(result.content).toBe(
      "[KEEL_ERR_BASH_WATCHDOG: the command's watchdog exited unexpectedly (SIGKILL); the command and its process group were killed]\nexit code: null",
    );
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
  });
});

describe("limits", () => {
  it("kills a command whose tree exceeds maxCpuSeconds (two busy subshells)", async () => {
    const result = (await bashTool.invoke(
      { command: "for i in 1 2; do (while :; do :; done) & done; wait", timeoutSeconds: 20 },
      context({ maxCpuSeconds: 0.5 }),
    )) as { content: string; status: string; artifact: { killed?: string; timedOut: boolean } };
    expect(result.status).toBe("error");
    expect(result.artifact).toMatchObject({ killed: "cpu_limit", timedOut: false });
    expect(result.content).toMatch(
      /^\[KEEL_ERR_BASH_CPU_LIMIT: the command used \d+\.\d\d CPU seconds \(limit 0\.5\); the command and its process group were killed\]\nexit code: null$/,
    );
  });

  it("kills a command whose tree exceeds maxMemoryMiB", async () => {
    const grow = "const a = []; setInterval(() => a.push(Buffer.alloc(16 * 2 ** 20, 1)), 20)";
    const result = (await bashTool.invoke({ command: `node -e '${grow}'`, timeoutSeconds: 20 }, context({ maxMemoryMiB: 128 }))) as {
      content: string;
      status: string;
      artifact: { killed?: string };
    };
    expect(result.status).toBe("error");
    expect(result.artifact.killed).toBe("memory_limit");
    expect(result.content).toMatch(
      /^\[KEEL_ERR_BASH_MEMORY_LIMIT: the command used \d+\.\d MiB of memory \(limit 128\.0 MiB\); the command and its process group were killed\]\nexit code: null$/,
    );
  });

  it("cuts a call's timeoutSeconds to maxTimeoutSeconds and says so", async () => {
    const result = (await bashTool.invoke({ command: "sleep 10", timeoutSeconds: 100 }, context({ maxTimeoutSeconds: 0.5 }))) as {
      content: string;
      artifact: { timedOut: boolean; killed?: string };
    };
    expect(result.artifact).toMatchObject({ timedOut: true, killed: "timeout" });
    expect(result.content).toBe(
      "[KEEL_ERR_BASH_TIMEOUT: timed out after 0.5 s (the call asked for 100 s; the workspace allows at most 0.5 s); the command and its process group were killed]\nexit code: null",
    );
  });

  it("keeps reading past maxOutputChars (5 MB of output) and marks what it dropped", async () => {
    const result = (await bashTool.invoke({ command: "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END" }, context({ maxOutputChars: 1000 }))) as {
      content: string;
      status: string;
      artifact: { output: string };
    };
    expect(result.status).toBe("success");
    expect(result.artifact.output).toBe(`[4999005 earlier characters of output dropped]\n${"x".repeat(995)}\nEND\n`);
    expect(result.content.endsWith("END\nexit code: 0")).toBe(true);
  });
});

describe("treeUsage", () => {
  it("counts a process and its children", async () => {
    const child = spawn("sleep", ["30"]);
    started.push(child);
    await new Promise((r) => child.once("spawn", r));
    const own = treeUsage(child.pid!);
    expect(own).toMatchObject({ processes: 1 });
    expect(own!.rssBytes).toBeGreaterThan(0);
    const mine = treeUsage(process.pid)!;
    expect(mine.processes).toBeGreaterThanOrEqual(2);
    expect(mine.rssBytes).toBeGreaterThan(own!.rssBytes);
    expect(treeUsage(2 ** 22 + 1)).toBeUndefined();
  });
});

describe("watchdogDeadlineForLease", () => {
  it("keeps the renewal deadline at half of what the lease leaves after its last renewal, within [50, 2000] ms", () => {
    expect(watchdogDeadlineForLease({ leaseTtlMs: 30_000, heartbeatMs: 10_000 })).toBe(2000);
    expect(watchdogDeadlineForLease({ leaseTtlMs: 5000, heartbeatMs: 2000 })).toBe(1500);
    expect(watchdogDeadlineForLease({ leaseTtlMs: 5000, heartbeatMs: 1001 })).toBe(1999);
    expect(watchdogDeadlineForLease({ leaseTtlMs: 300, heartbeatMs: 100 })).toBe(100);
    expect(watchdogDeadlineForLease({ leaseTtlMs: 100, heartbeatMs: 90 })).toBe(50);
  });
});
