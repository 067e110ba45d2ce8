import type { CommandIO } from "../../tools/cli/io.js";

export function fakeIO(cwd = process.cwd()): CommandIO & { stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (t) => void out.push(t), err: (t) => void err.push(t), cwd, stdout: () => out.join("\n"), stderr: () => err.join("\n") };
}
