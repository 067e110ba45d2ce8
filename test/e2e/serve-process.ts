import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../kernel/package-root.js";

export const BIN = join(packageRoot(), "dist", "tools", "cli", "bin.js");
export const FIXTURES = join(packageRoot(), "test", "e2e", "fixtures");

/** The e2e tests drive the built CLI: `npm test` runs `tsc` first. */
export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npm test runs tsc before vitest)`);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Send `signal` (default SIGTERM) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawn `keel serve ARGS` and resolve once it printed `Keel listening on URL`. */
export function startServe(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<ServeProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, "serve", ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`keel serve did not start within 30 s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 30_000);
    const onData = () => {
      const match = /^Keel listening on (http:\/\/\S+)$/m.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      resolve({
        url: match[1]!,
        child,
        output: () => ({ stdout, stderr }),
        stop: async (signal = "SIGTERM") => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on("data", onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`keel serve exited (${code ?? signal}) before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

/** Run `keel serve ARGS` expecting it to refuse to start; resolves with its exit code and output. */
export function runServeToExit(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, "serve", ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
