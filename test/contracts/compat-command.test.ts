import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contractsCommand } from "../../tools/cli/commands/contracts.js";
import { main } from "../../tools/cli/main.js";
import type { CommandIO } from "../../tools/cli/io.js";

const dir = mkdtempSync(join(tmpdir(), "keel-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return name;
}

function capture(): CommandIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), cwd: dir };
}

const old = file("old.json", { type: "object", properties: { a: { type: "string", maxLength: 5 } }, additionalProperties: false });
const wider = file("wider.json", { type: "object", properties: { a: { type: "string", maxLength: 9 } }, additionalProperties: false });

describe("keel contracts diff", () => {
  it("--json prints changes and verdicts, compatible for the default mode (backward): exit 0", async () => {
    const io = capture();
    expect(await contractsCommand(["diff", old, wider, "--json"], io)).toBe(0);
    expect(io.stderr).toEqual([]);
    expect(JSON.parse(io.stdout.join("\n"))).toEqual({
      changes: [{ code: "MAX_LENGTH_INCREASED", path: "#/properties/a/maxLength", backward: true, forward: false, message: expect.any(String) }],
      backward: true,
      forward: false,
      full: false,
      compatible: true,
    });
  });

  it.each([
    ["forward", 1, false],
    ["full", 1, false],
    ["backward", 0, true],
  ] as const)("--mode %s decides `compatible` and the exit code (%i)", async (mode, exit, compatible) => {
    const io = capture();
    expect(await contractsCommand(["diff", old, wider, "--mode", mode, "--json"], io)).toBe(exit);
    expect(JSON.parse(io.stdout.join("\n")).compatible).toBe(compatible);
  });

  it("text mode prints one line per change, then the three verdicts", async () => {
    const io = capture();
    expect(await main(["contracts", "diff", wider, old], io)).toBe(1);
    expect(io.stdout.join("\n").split("\n")).toEqual([
      "MAX_LENGTH_DECREASED #/properties/a/maxLength (backward BREAKS, forward keeps): `maxLength` 9 → 5",
      "backward: incompatible",
      "forward: compatible",
      "full: incompatible",
    ]);
  });

  it.each([
    [["diff", old, "missing.json", "--json"], "KEEL_ERR_CLI_FILE"],
    [["diff", old, file("broken.json", "{ nope"), "--json"], "KEEL_ERR_CLI_JSON"],
    [["diff", old, file("list.json", [1, 2]), "--json"], "KEEL_ERR_CONTRACTS_NOT_A_SCHEMA"],
    [["diff", old, "--json"], "KEEL_ERR_CLI_USAGE"],
    [["diff", old, wider, "--mode", "both", "--json"], "KEEL_ERR_CLI_USAGE"],
    [["diff", old, wider, "--nope", "--json"], "KEEL_ERR_CLI_USAGE"],
    [["--json"], "KEEL_ERR_CLI_USAGE"],
  ])("%j exits 2 with %s", async (args, code) => {
    const io = capture();
    expect(await contractsCommand(args, io)).toBe(2);
    expect(JSON.parse(io.stdout.join("\n"))).toEqual({ ok: false, error: { code, message: expect.any(String) } });
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(new RegExp(`^${code}: `));
  });
});
