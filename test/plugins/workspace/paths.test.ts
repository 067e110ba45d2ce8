import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext, ToolOutput } from "../../../kernel/plugin/types.js";
import {
  lsTool,
  readFileTool,
  resolveInWorkspace,
  strReplaceTool,
  workspaceDir,
  writeFileTool,
} from "../../../plugins/workspace/index.js";

let root: string;
let dir: string;
let outside: string;
let ctx: ToolContext;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-paths-"));
  dir = path.join(root, "ws", "t1");
  outside = path.join(root, "outside");
  mkdirSync(dir, { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "top secret\n");
  ctx = {
    threadId: "t1",
    runId: "r1",
    agent: "lead",
    turn: 1,
    toolCallId: "c1",
    config: { root: path.join(root, "ws") },
    signal: new AbortController().signal,
    now: () => "2025-01-01T00:00:00.000Z",
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function expectEscape(result: ToolOutput): void {
  expect(typeof result).toBe("object");
  const r = result as { content: string; status?: string };
  expect(r.status).toBe("error");
  expect(r.content.startsWith("KEEL_ERR_WORKSPACE_ESCAPE:")).toBe(true);
}

describe("workspaceDir", () => {
  it("is <root>/<threadId>, a relative root resolved against the working directory", () => {
    expect(workspaceDir({ root: "/srv/ws" }, "abc")).toBe("/srv/ws/abc");
    expect(workspaceDir({}, "abc")).toBe(path.join(process.cwd(), ".keel/workspaces/abc"));
  });

  it("refuses a thread id that is not one path segment", () => {
    expect(() => workspaceDir({ root: "/srv/ws" }, "../etc")).toThrow(/KEEL_ERR_WORKSPACE_ESCAPE|not a single path segment/);
    expect(() => workspaceDir({ root: "/srv/ws" }, "..")).toThrow(/not a single path segment/);
  });
});

describe("escape refusal", () => {
  it("refuses `../x` for reading and writing", async () => {
    writeFileSync(path.join(root, "ws", "x"), "sibling");
    expectEscape(await readFileTool.invoke({ path: "../x" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: "../x", content: "pwned" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: "sub/../../y", content: "pwned" }, ctx));
    expect(readFileSync(path.join(root, "ws", "x"), "utf8")).toBe("sibling");
    expect(existsSync(path.join(root, "ws", "y"))).toBe(false);
  });

  it("refuses an absolute path outside the workspace", async () => {
    expectEscape(await readFileTool.invoke({ path: "/etc/passwd" }, ctx));
    expectEscape(await lsTool.invoke({ path: "/etc" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: path.join(outside, "new.txt"), content: "x" }, ctx));
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
  });

  it("refuses a symlink inside the workspace that points outside, for read and write", async () => {
    symlinkSync(outside, path.join(dir, "link"));
    symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "secret-link.txt"));
    expectEscape(await readFileTool.invoke({ path: "link/secret.txt" }, ctx));
    expectEscape(await readFileTool.invoke({ path: "secret-link.txt" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: "link/secret.txt", content: "overwritten" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: "link/new/deep.txt", content: "x" }, ctx));
    expectEscape(await writeFileTool.invoke({ path: "secret-link.txt", content: "overwritten" }, ctx));
    expectEscape(await strReplaceTool.invoke({ path: "secret-link.txt", oldText: "top", newText: "no" }, ctx));
    expectEscape(await lsTool.invoke({ path: "link" }, ctx));
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    expect(existsSync(path.join(outside, "new"))).toBe(false);
  });

  it("refuses writing through a dangling symlink that points outside", async () => {
    symlinkSync(path.join(outside, "planted.txt"), path.join(dir, "dangling.txt"));
    expectEscape(await writeFileTool.invoke({ path: "dangling.txt", content: "x" }, ctx));
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
  });

  it("allows a symlink that stays inside and an absolute path inside", async () => {
    mkdirSync(path.join(dir, "real"));
    writeFileSync(path.join(dir, "real", "a.txt"), "inside\n");
    symlinkSync(path.join(dir, "real"), path.join(dir, "alias"));
    expect(await readFileTool.invoke({ path: "alias/a.txt" }, ctx)).toBe("inside\n");
    expect(resolveInWorkspace(dir, path.join(dir, "real", "a.txt")).rel).toBe("real/a.txt");
    expect(resolveInWorkspace(dir, "./real/../real/a.txt").rel).toBe("real/a.txt");
    expect(resolveInWorkspace(dir, ".").rel).toBe(".");
  });

  it("names the refused path in the message", async () => {
    const result = (await readFileTool.invoke({ path: "../x" }, ctx)) as { content: string };
    expect(result.content).toBe(
      "KEEL_ERR_WORKSPACE_ESCAPE: refused path `../x`: it is outside the workspace; use a path relative to the workspace root",
    );
  });
});
