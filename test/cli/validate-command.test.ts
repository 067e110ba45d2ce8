import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { validateCommand } from "../../tools/cli/commands/validate.js";
import { main } from "../../tools/cli/main.js";
import { captureIO } from "./capture-io.js";

let dir: string;

const receipt = {
  id: "r1",
  toolCallId: "call_1",
  tool: "write_file",
  status: "success",
  argsSha256: "0123456789abcdef",
  outputSha256: "0123456789abcdef",
  bytes: 12,
  createdAt: "2026-01-02T03:04:05Z",
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "keel-validate-"));
  writeFileSync(join(dir, "receipt.json"), JSON.stringify(receipt));
  writeFileSync(join(dir, "bad-receipt.json"), JSON.stringify({ ...receipt, id: "r0", bytes: -3, note: "x" }));
  writeFileSync(join(dir, "newer-status.json"), JSON.stringify({ status: "completed", confidence: 0.9 }));
  writeFileSync(join(dir, "broken.json"), "{ not json");
  writeFileSync(join(dir, "array.json"), "[]");
});

describe("keel validate", () => {
  it("exits 0 and prints `valid` for a valid payload (path relative to cwd)", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["receipt@1", "receipt.json"], io)).toBe(0);
    expect(io.stdout).toEqual(["valid"]);
    expect(io.stderr).toEqual([]);
  });

  it("--json: { valid: true, errors: [] }", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["receipt@1", join(dir, "receipt.json"), "--json"], io)).toBe(0);
    expect(io.json()).toEqual({ valid: true, errors: [] });
  });

  it("exits 1 with one `<pointer>: <message>` line per error", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["receipt@1", "bad-receipt.json"], io)).toBe(1);
    const lines = io.stdout.join("\n").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines).toContain("/note: unknown property `note`");
    expect(lines.some((l) => l.startsWith("/id: "))).toBe(true);
    expect(lines.some((l) => l.startsWith("/bytes: "))).toBe(true);
  });

  it("--json on an invalid payload: { valid: false, errors: [{ pointer, message }] }", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["receipt@1", "bad-receipt.json", "--json"], io)).toBe(1);
    const doc = io.json();
    expect(doc.valid).toBe(false);
    expect(doc.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(["/bytes", "/id", "/note"]);
    for (const e of doc.errors) expect(Object.keys(e).sort()).toEqual(["message", "pointer"]);
  });

  it("validates strictly, not as a tolerant reader", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["status@1", "newer-status.json", "--json"], io)).toBe(1);
    expect(io.json().errors).toEqual([{ pointer: "/confidence", message: "unknown property `confidence`" }]);
  });

  it("names the root as `/` in text mode", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["receipt@1", "array.json"], io)).toBe(1);
    expect(io.stdout).toEqual(["/: must be object"]);
  });

  it.each([
    [["status@9", "receipt.json"], "KEEL_ERR_CONTRACT_UNKNOWN"],
    [["nope@1", "receipt.json"], "KEEL_ERR_CONTRACT_UNKNOWN"],
    [["receipt", "receipt.json"], "KEEL_ERR_CONTRACT_UNKNOWN"],
    [["receipt@1", "missing.json"], "KEEL_ERR_CLI_FILE"],
    [["receipt@1", "broken.json"], "KEEL_ERR_CLI_JSON"],
    [["receipt@1"], "KEEL_ERR_CLI_USAGE"],
    [["receipt@1", "receipt.json", "extra"], "KEEL_ERR_CLI_USAGE"],
    [["receipt@1", "receipt.json", "--strict"], "KEEL_ERR_CLI_USAGE"],
  ])("%j exits 2 with %s", async (args, code) => {
    const io = captureIO(dir);
    expect(await validateCommand([...args, "--json"], io)).toBe(2);
    expect(io.json()).toEqual({ ok: false, error: { code, message: expect.any(String) } });
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(new RegExp(`^${code}: `));
  });

  it("an unknown contract is reported before the file is read", async () => {
    const io = captureIO(dir);
    expect(await validateCommand(["status@9", "missing.json"], io)).toBe(2);
    expect(io.stderr[0]).toMatch(/^KEEL_ERR_CONTRACT_UNKNOWN: unknown contract `status@9`/);
    expect(io.stdout).toEqual([]);
  });

  it("is reachable as `keel validate`", async () => {
    const io = captureIO(dir);
    expect(await main(["validate", "receipt@1", "receipt.json"], io)).toBe(0);
    expect(io.stdout).toEqual(["valid"]);
  });
});
