/**
 * `npm start` stops on Ctrl-C (SIGINT to the terminal's foreground process group) and on
 * SIGTERM to its process group: npm, the shell it runs the script with and the server
 * all exit. Spawned detached so the group is its own (pgid = npm's pid).
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { assertBuilt, tempDir } from "./serve-process.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Whether any process of group `pgid` is alive (signal 0 probes without signalling). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

async function startNpm(): Promise<{ pgid: number; url: string; exited: Promise<number | null>; output: () => string }> {
  assertBuilt();
  const dir = tempDir("keel-npm-start-");
  dirs.push(dir);
  const child = spawn("npm", ["start", "--silent", "--", "--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`], {
    cwd: packageRoot(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`npm start did not print its URL within 25 s:\n${output}`));
    }, 25_000);
    child.stdout!.on("data", () => {
      const match = /Keel listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return { pgid: child.pid!, url, exited, output: () => output };
}

/** Resolves once no process of the group is left; rejects (killing the group) after `boundMs`: a hang, not a speed check. */
async function groupGone(pgid: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, "SIGKILL");
      throw new Error(`process group ${pgid} still alive ${boundMs} ms after the signal`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("npm start and signals to its process group", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`stops every process of the group on ${signal}, after a graceful shutdown`, async () => {
      const started = await startNpm();
      expect((await fetch(`${started.url}/ok`)).status).toBe(200);
      expect(groupAlive(started.pgid)).toBe(true);
      process.kill(-started.pgid, signal);
      await groupGone(started.pgid, 15_000);
      await started.exited;
      expect(started.output()).toContain(`${signal}: shutting down`);
      await expect(fetch(`${started.url}/ok`)).rejects.toThrow();
      // npm's own boot plus a server's: ~10 s on a loaded 2-core machine.
    }, 45_000);
  }
});
