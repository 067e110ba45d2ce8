import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validateAgainst } from "../../../contracts/ajv.js";
import type { ToolContext } from "../../../kernel/plugin/types.js";
import { lsTool, readFileTool, strReplaceTool, workspacePlugin, writeFileTool } from "../../../plugins/workspace/index.js";

let root: string;
let dir: string;
let ctx: ToolContext;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-files-"));
  dir = path.join(root, "thread-1");
  ctx = {
    threadId: "thread-1",
    runId: "run-1",
    agent: "lead",
    turn: 1,
    toolCallId: "call-1",
    config: { root },
    signal: new AbortController().signal,
    now: () => "2025-01-01T00:00:00.000Z",
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("workspace plugin", () => {
  it("exports the five tools with closed schemas", () => {
    expect(workspacePlugin.tools?.map((t) => t.name)).toEqual(["read_file", "write_file", "str_replace", "ls", "bash"]);
    for (const tool of workspacePlugin.tools ?? []) {
      expect(tool.schema.type).toBe("object");
      expect(tool.schema.additionalProperties).toBe(false);
    }
    expect(workspacePlugin.manifest.channels?.bashRuns?.reducer).toBe("append");
    expect(workspacePlugin.manifest.provides).toEqual(["workspace", "rollback"]);
  });

  it("has a closed config schema whose defaults match the README", () => {
    const config: Record<string, unknown> = { scriptedBash: [{ match: "npm test", output: "ok" }] };
    expect(validateAgainst(workspacePlugin.manifest.config!, config, { applyDefaults: true }).valid).toBe(true);
    expect(config).toEqual({
      root: ".keel/workspaces",
      bash: "on",
      maxOutputChars: 100000,
      maxTimeoutSeconds: 600,
      maxCpuSeconds: 1200,
      maxMemoryMiB: 4096,
      watchdogDeadlineMs: 2000,
      scriptedBash: [{ match: "npm test", output: "ok", exitCode: 0 }],
    });
    const bad = validateAgainst(workspacePlugin.manifest.config!, { bash: "maybe", shell: "zsh" });
    expect(bad.valid).toBe(false);
    expect(bad.errors.map((e) => e.pointer).sort()).toEqual(["/bash", "/shell"]);
  });
});

describe("write_file", () => {
  it("creates the thread directory and parent directories and reports the bytes", async () => {
    const result = await writeFileTool.invoke({ path: "docs/notes.md", content: "héllo world\n" }, ctx);
    expect(result).toEqual({ content: "wrote 13 bytes to docs/notes.md", artifact: { kind: "file_write", path: "docs/notes.md", bytes: 13, epoch: null } });
    expect(readFileSync(path.join(dir, "docs/notes.md"), "utf8")).toBe("héllo world\n");
  });

  it("refuses a missing content with an error result", async () => {
    expect(await writeFileTool.invoke({ path: "a.txt" }, ctx)).toEqual({ content: "`content` must be a string", status: "error" });
    expect(existsSync(path.join(dir, "a.txt"))).toBe(false);
  });

  it("refuses to write over a directory", async () => {
    mkdirSync(path.join(dir, "sub"), { recursive: true });
    expect(await writeFileTool.invoke({ path: "sub", content: "x" }, ctx)).toEqual({ content: "`sub` is a directory", status: "error" });
  });
});

describe("read_file", () => {
  beforeEach(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "lines.txt"), "one\ntwo\nthree\nfour\n");
  });

  it("returns the whole text", async () => {
    expect(await readFileTool.invoke({ path: "lines.txt" }, ctx)).toBe("one\ntwo\nthree\nfour\n");
  });

  it("returns a 1-based inclusive line range", async () => {
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 2, endLine: 3 }, ctx)).toBe("two\nthree\n");
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 3 }, ctx)).toBe("three\nfour\n");
    expect(await readFileTool.invoke({ path: "lines.txt", endLine: 1 }, ctx)).toBe("one\n");
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 4, endLine: 99 }, ctx)).toBe("four\n");
  });

  it("reports a missing file, a range past the end and a reversed range as errors", async () => {
    expect(await readFileTool.invoke({ path: "nope.txt" }, ctx)).toEqual({ content: "`nope.txt` does not exist", status: "error" });
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 5 }, ctx)).toEqual({
      content: "startLine 5 is past the end of `lines.txt` (4 lines)",
      status: "error",
    });
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 3, endLine: 2 }, ctx)).toEqual({
      content: "endLine 2 is before startLine 3",
      status: "error",
    });
    expect(await readFileTool.invoke({ path: "lines.txt", startLine: 0 }, ctx)).toEqual({
      content: "`startLine` must be an integer >= 1",
      status: "error",
    });
  });

  it("accepts an absolute path inside the workspace", async () => {
    expect(await readFileTool.invoke({ path: path.join(dir, "lines.txt"), endLine: 2 }, ctx)).toBe("one\ntwo\n");
  });
});

describe("str_replace", () => {
  beforeEach(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "code.ts"), "const a = 1;\nconst b = 1;\nconst c = 2;\n");
  });

  it("replaces a unique occurrence, keeping `$` sequences literal", async () => {
    const result = await strReplaceTool.invoke({ path: "code.ts", oldText: "const c = 2;", newText: "const c = '$&';" }, ctx);
    expect(result).toMatchObject({ content: "replaced 1 occurrence in code.ts", artifact: { kind: "file_write", path: "code.ts", epoch: null } });
    expect(readFileSync(path.join(dir, "code.ts"), "utf8")).toBe("const a = 1;\nconst b = 1;\nconst c = '$&';\n");
  });

  it("refuses 0 and 2 occurrences, saying how many, and leaves the file alone", async () => {
    expect(await strReplaceTool.invoke({ path: "code.ts", oldText: "= 1;", newText: "= 3;" }, ctx)).toEqual({
      content: "oldText occurs 2 times in `code.ts`; it must occur exactly once (add surrounding text to make it unique)",
      status: "error",
    });
    expect(await strReplaceTool.invoke({ path: "code.ts", oldText: "let", newText: "var" }, ctx)).toEqual({
      content: "oldText occurs 0 times in `code.ts`; it must occur exactly once (add surrounding text to make it unique)",
      status: "error",
    });
    expect(readFileSync(path.join(dir, "code.ts"), "utf8")).toBe("const a = 1;\nconst b = 1;\nconst c = 2;\n");
  });

  it("reports a missing file", async () => {
    expect(await strReplaceTool.invoke({ path: "gone.ts", oldText: "a", newText: "b" }, ctx)).toEqual({
      content: "`gone.ts` does not exist",
      status: "error",
    });
  });
});

describe("ls", () => {
  it("lists sorted entries, directories with a trailing slash", async () => {
    mkdirSync(path.join(dir, "src/deep"), { recursive: true });
    writeFileSync(path.join(dir, "b.txt"), "b");
    writeFileSync(path.join(dir, "a.txt"), "a");
    writeFileSync(path.join(dir, "src/x.ts"), "x");
    expect(await lsTool.invoke({}, ctx)).toBe("a.txt\nb.txt\nsrc/");
    expect(await lsTool.invoke({ path: "src" }, ctx)).toBe("deep/\nx.ts");
  });

  it("lists an empty new workspace as nothing", async () => {
    expect(await lsTool.invoke({}, ctx)).toBe("");
    expect(existsSync(dir)).toBe(true);
  });

  it("reports a missing directory and a file", async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "f.txt"), "f");
    expect(await lsTool.invoke({ path: "missing" }, ctx)).toEqual({ content: "`missing` does not exist", status: "error" });
    expect(await lsTool.invoke({ path: "f.txt" }, ctx)).toEqual({ content: "`f.txt` is not a directory", status: "error" });
  });
});
