import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RollbackPort } from "../../../kernel/ports/rollback.js";
import receiptsPlugin from "../../../plugins/receipts/index.js";
import subagentsPlugin from "../../../plugins/subagents/index.js";
import { snapshotWorkspace, workspacePlugin } from "../../../plugins/workspace/index.js";

let root: string;
let scratch: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-port-"));
  scratch = mkdtempSync(path.join(tmpdir(), "keel-ws-scratch-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("workspace plugin: the rollback port", () => {
  it("captures the thread's directory and puts it back on commit; release drops the copy", async () => {
    const port = workspacePlugin.services!.rollback!({ root }) as RollbackPort;
    const dir = path.join(root, "t-1");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "notes.md"), "before\n");
    const point = (await port.capture("t-1", { scratchDir: scratch }))!;
    writeFileSync(path.join(dir, "notes.md"), "after\n");
    writeFileSync(path.join(dir, "new.txt"), "new\n");
    const staged = await point.prepare();
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("after\n"); // nothing visible before commit
    await staged.commit();
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("before\n");
    expect(existsSync(path.join(dir, "new.txt"))).toBe(false);
    await point.release();
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("a thread without a directory is rolled back to none", async () => {
    const port = workspacePlugin.services!.rollback!({ root }) as RollbackPort;
    const point = (await port.capture("t-2", { scratchDir: scratch }))!;
    mkdirSync(path.join(root, "t-2"));
    writeFileSync(path.join(root, "t-2", "made.txt"), "x");
    await (await point.prepare()).commit();
    expect(existsSync(path.join(root, "t-2"))).toBe(false);
  });

  it("the manifest lists the port it provides", () => {
    expect(workspacePlugin.manifest.provides).toContain("rollback");
  });
});

describe("built-in report hooks", () => {
  it("workspace lists the thread's files for the lead, nothing for a child", () => {
    const dir = path.join(root, "t-1");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "a.txt"), "hello");
    const files = workspacePlugin.report!({ agent: "lead", threadId: "t-1", values: {}, config: { root } });
    expect(files).toEqual({ workspaceFiles: snapshotWorkspace(dir) });
    expect(Object.keys(files!.workspaceFiles!)).toEqual(["a.txt"]);
    expect(workspacePlugin.report!({ agent: "lead/c1", threadId: "t-1", values: {}, config: { root } })).toBeUndefined();
  });

  it("receipts reports its channel, subagents its ledger", () => {
    expect(receiptsPlugin.report!({ agent: "lead", threadId: "t", values: { receipts: [{ id: "r1" }] }, config: {} })).toEqual({ receipts: [{ id: "r1" }] });
    expect(receiptsPlugin.report!({ agent: "lead", threadId: "t", values: {}, config: {} })).toEqual({ receipts: [] });
    expect(subagentsPlugin.report!({ agent: "lead", threadId: "t", values: { delegations: [{ id: "d1" }] }, config: {} })).toEqual({ delegations: [{ id: "d1" }] });
  });
});
