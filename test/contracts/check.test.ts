import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkContracts } from "../../tools/contracts/check.js";
import { contractsCommand } from "../../tools/cli/commands/contracts.js";
import type { CommandIO } from "../../tools/cli/io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), "keel-check-"));
  dirs.push(root);
  mkdirSync(join(root, "schemas"));
  for (const [name, schema] of Object.entries(files)) writeFileSync(join(root, "schemas", name), JSON.stringify(schema, null, 2));
  return root;
}

function capture(cwd: string): CommandIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), cwd };
}

const statusV1 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["status"],
  properties: { status: { enum: ["ok", "failed"] }, brief: { type: "string", maxLength: 100 } },
  additionalProperties: false,
};
const widened = { ...statusV1, properties: { ...statusV1.properties, status: { enum: ["ok", "failed", "partial"] } } };
const narrowed = { ...statusV1, properties: { ...statusV1.properties, brief: { type: "string", maxLength: 50 } } };
const other = { type: "object", properties: { id: { type: "string" } } };

describe("checkContracts against a directory", () => {
  it("accepts a compatible change within a major version", () => {
    const base = tree({ "status.v1.schema.json": statusV1 });
    const here = tree({ "status.v1.schema.json": widened });
    expect(checkContracts({ cwd: here, base })).toEqual({ ok: true, violations: [], compared: ["schemas/status.v1.schema.json"] });
  });

  it("reports an incompatible change with its code and pointer", () => {
    const base = tree({ "status.v1.schema.json": statusV1 });
    const here = tree({ "status.v1.schema.json": narrowed });
    const result = checkContracts({ cwd: here, base });
    expect(result.ok).toBe(false);
    expect(result.violations).toEqual([
      { file: "schemas/status.v1.schema.json", code: "MAX_LENGTH_DECREASED", pointer: "#/properties/brief/maxLength", message: expect.stringContaining("breaks backward") },
    ]);
  });

  it("judges the mode: widening breaks forward, narrowing does not", () => {
    const base = tree({ "status.v1.schema.json": statusV1 });
    expect(checkContracts({ cwd: tree({ "status.v1.schema.json": widened }), base, mode: "forward" }).violations.map((v) => v.code)).toEqual(["ENUM_VALUE_ADDED"]);
    expect(checkContracts({ cwd: tree({ "status.v1.schema.json": narrowed }), base, mode: "forward" }).ok).toBe(true);
    expect(checkContracts({ cwd: tree({ "status.v1.schema.json": narrowed }), base, mode: "full" }).violations.map((v) => v.code)).toEqual(["MAX_LENGTH_DECREASED"]);
  });

  it("reports a published version that disappeared", () => {
    const base = tree({ "status.v1.schema.json": statusV1, "other.v1.schema.json": other });
    const result = checkContracts({ cwd: tree({ "status.v1.schema.json": statusV1 }), base });
    expect(result.violations).toEqual([{ file: "schemas/other.v1.schema.json", code: "VERSION_REMOVED", pointer: "#", message: expect.stringContaining("`other@1`") }]);
  });

  it("requires a registered migration for a new major version", () => {
    const base = tree({ "status.v1.schema.json": statusV1 });
    const here = tree({ "status.v1.schema.json": statusV1, "status.v2.schema.json": narrowed });
    const missing = checkContracts({ cwd: here, base, migrations: [] });
    expect(missing.violations).toEqual([{ file: "schemas/status.v2.schema.json", code: "MIGRATION_MISSING", pointer: "#", message: expect.stringContaining("from `status@1`") }]);
    const registered = checkContracts({ cwd: here, base, migrations: [{ contract: "status", from: 1, to: 2 }] });
    expect(registered.ok).toBe(true);
  });

  it("lets a brand-new contract in without a migration", () => {
    const base = tree({ "status.v1.schema.json": statusV1 });
    expect(checkContracts({ cwd: tree({ "status.v1.schema.json": statusV1, "other.v3.schema.json": other }), base, migrations: [] }).ok).toBe(true);
  });
});

describe("checkContracts against a git ref", () => {
  function repo(): string {
    const root = tree({ "status.v1.schema.json": statusV1, "other.v1.schema.json": other });
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: root, stdio: "pipe" });
    git("init", "-q");
    git("add", "schemas");
    git("commit", "-q", "-m", "publish");
    return root;
  }

  it("reads the base with git and reports what changed since", () => {
    const root = repo();
    writeFileSync(join(root, "schemas", "status.v1.schema.json"), JSON.stringify(narrowed));
    rmSync(join(root, "schemas", "other.v1.schema.json"));
    const result = checkContracts({ cwd: root, base: "HEAD" });
    expect(result.violations.map((v) => [v.file, v.code])).toEqual([
      ["schemas/other.v1.schema.json", "VERSION_REMOVED"],
      ["schemas/status.v1.schema.json", "MAX_LENGTH_DECREASED"],
    ]);
  });

  it("is clean when nothing changed since the ref", () => {
    const root = repo();
    expect(checkContracts({ cwd: root, base: "HEAD" })).toMatchObject({ ok: true, compared: ["schemas/other.v1.schema.json", "schemas/status.v1.schema.json"] });
  });

  it("keel contracts check --json prints { ok, violations } and exits 1 on a violation", async () => {
    const root = repo();
    writeFileSync(join(root, "schemas", "status.v1.schema.json"), JSON.stringify(narrowed));
    const io = capture(root);
    expect(await contractsCommand(["check", "--base", "HEAD", "--json"], io)).toBe(1);
    const doc = JSON.parse(io.stdout.join("\n"));
    expect(Object.keys(doc)).toEqual(["ok", "violations"]);
    expect(doc.ok).toBe(false);
    expect(doc.violations[0]).toEqual({ file: "schemas/status.v1.schema.json", code: "MAX_LENGTH_DECREASED", pointer: "#/properties/brief/maxLength", message: expect.any(String) });
  });

  it("keel contracts check exits 0 with a summary when compatible", async () => {
    const root = repo();
    writeFileSync(join(root, "schemas", "status.v1.schema.json"), JSON.stringify(widened));
    const io = capture(root);
    expect(await contractsCommand(["check", "--base", "HEAD"], io)).toBe(0);
    expect(io.stdout.join("\n")).toMatch(/backward-compatible with `HEAD` \(2 schema files compared\)/);
  });
});

describe("keel contracts check, bad usage", () => {
  it.each([
    [["check", "--base", "no-such-ref-or-dir", "--json"], "KEEL_ERR_CONTRACTS_BASE"],
    [["check", "--json"], "KEEL_ERR_CLI_USAGE"],
    [["check", "--base", ".", "--mode", "sideways", "--json"], "KEEL_ERR_CLI_USAGE"],
    [["frob", "--json"], "KEEL_ERR_CLI_USAGE"],
  ])("%j exits 2 with %s", async (args, code) => {
    const io = capture(tree({}));
    expect(await contractsCommand(args, io)).toBe(2);
    expect(JSON.parse(io.stdout.join("\n"))).toEqual({ ok: false, error: { code, message: expect.any(String) } });
    expect(io.stderr.join("\n")).toMatch(new RegExp(`^${code}: `));
  });

  it("a base directory without schemas/ is bad input", async () => {
    const empty = mkdtempSync(join(tmpdir(), "keel-check-empty-"));
    dirs.push(empty);
    const io = capture(tree({}));
    expect(await contractsCommand(["check", "--base", empty], io)).toBe(2);
    expect(io.stderr.join("\n")).toMatch(/^KEEL_ERR_CONTRACTS_BASE: .*holds no `schemas\/`/);
  });
});
