import { describe, expect, it } from "vitest";
import { schemasCommand } from "../../tools/cli/commands/schemas.js";
import { docsCommand } from "../../tools/cli/commands/docs.js";
import type { CommandIO } from "../../tools/cli/io.js";

function capture(): CommandIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), cwd: process.cwd() };
}

describe.each([
  ["schemas", schemasCommand],
  ["docs", docsCommand],
] as const)("keel %s build", (_, command) => {
  it("--check exits 0 when the committed files are up to date", async () => {
    const io = capture();
    expect(await command(["build", "--check"], io)).toBe(0);
    expect(io.stderr).toEqual([]);
  });

  it.each([[["build", "--nope"]], [["frob"]], [[]], [["build", "extra"]]])("bad usage %j exits 2 with KEEL_ERR_CLI_USAGE", async (args) => {
    const io = capture();
    expect(await command(args, io)).toBe(2);
    expect(io.stderr.join("\n")).toMatch(/^KEEL_ERR_CLI_USAGE: /);
  });
});
