import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keelMeta, setKeelMeta } from "../../../kernel/loop/message-meta.js";
import type { GuardEventData, HookContext, ToolHandler, ToolRequest } from "../../../kernel/plugin/types.js";
import type { WorkspacePort } from "../../../kernel/ports/workspace.js";
import { PathLocks, createWriteGuard } from "../../../plugins/read-before-write/index.js";
import { workspaceDir, workspacePlugin } from "../../../plugins/workspace/index.js";

const threadId = "t-rbw";
let root: string;
let dir: string;
let guards: GuardEventData[];

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-rbw-"));
  dir = workspaceDir({ root }, threadId);
  mkdirSync(dir, { recursive: true });
  guards = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

function ctx(config: Record<string, unknown> = { enabled: true }, port?: () => unknown): HookContext {
  return {
    threadId,
    runId: "r1",
    agent: "lead",
    turn: 1,
    plugin: "read-before-write",
    hook: "wrapToolCall",
    config,
    signal: new AbortController().signal,
    emit: () => {},
    guard: (data) => guards.push(data),
    update: () => {},
    summarize: async () => "",
    now: () => "2026-01-01T00:00:00.000Z",
    port: <T>() => (port ? port() : workspacePlugin.services!.workspace!({ root })) as T,
  };
}

function request(name: string, args: Record<string, unknown>, messages: BaseMessage[] = [], id = "call-1"): ToolRequest {
  return { toolCall: { id, name, args }, index: 0, tool: undefined, state: { messages } };
}

function result(id: string, content: string, status: "success" | "error" = "success") {
  return new ToolMessage({ id: `${id}:result`, tool_call_id: id, content, status });
}

/** A tool stand-in that does the real file operation, so the guard sees real effects. */
const fileTool: ToolHandler = async ({ toolCall }) => {
  const abs = path.join(dir, toolCall.args.path as string);
  if (toolCall.name === "read_file") return result(toolCall.id, readFileSync(abs, "utf8"));
  if (toolCall.name === "write_file") {
    await writeFile(abs, toolCall.args.content as string);
    return result(toolCall.id, "wrote");
  }
  const text = readFileSync(abs, "utf8");
  await writeFile(abs, text.replace(toolCall.args.oldText as string, toolCall.args.newText as string));
  return result(toolCall.id, "replaced");
};

function markedRead(pathRel: string, content: string, id = "read-1") {
  return setKeelMeta(result(id, content), { readMark: { path: pathRel, sha256: sha(content) } });
}

describe("read marks on read_file results", () => {
  it("stamps the normalized path and the sha256 of the file's bytes", async () => {
    writeFileSync(path.join(dir, "notes.md"), "hello\n");
    const response = await createWriteGuard(new PathLocks())(request("read_file", { path: "./sub/../notes.md" }), fileTool, ctx());
    expect(keelMeta(response).readMark).toEqual({ path: "notes.md", sha256: sha("hello\n") });
  });

  it("stamps no mark on a failed read, or when the file changed during the read", async () => {
    writeFileSync(path.join(dir, "notes.md"), "hello\n");
    const guard = createWriteGuard(new PathLocks());
    const failed = await guard(request("read_file", { path: "notes.md" }), async () => result("call-1", "nope", "error"), ctx());
    expect(keelMeta(failed).readMark).toBeUndefined();
    const raced = await guard(
      request("read_file", { path: "notes.md" }),
      async () => {
        writeFileSync(path.join(dir, "notes.md"), "changed by a concurrent command\n");
        return result("call-1", "hello\n");
      },
      ctx(),
    );
    expect(keelMeta(raced).readMark).toBeUndefined();
  });

  it("does nothing when disabled", async () => {
    writeFileSync(path.join(dir, "notes.md"), "hello\n");
    const guard = createWriteGuard(new PathLocks());
    const read = await guard(request("read_file", { path: "notes.md" }), fileTool, ctx({ enabled: false }));
    expect(keelMeta(read).readMark).toBeUndefined();
    const write = await guard(request("write_file", { path: "notes.md", content: "x" }), fileTool, ctx({ enabled: false }));
    expect(write.status).toBe("success");
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("x");
  });
});

describe("edits of existing files", () => {
  it("refuses without a read mark, without calling the tool, and emits a guard event", async () => {
    writeFileSync(path.join(dir, "report.md"), "# R\n");
    let called = 0;
    const response = await createWriteGuard(new PathLocks())(
      request("write_file", { path: "report.md", content: "# New\n" }),
      async (r) => {
        called++;
        return fileTool(r);
      },
      ctx(),
    );
    expect(called).toBe(0);
    expect(response.status).toBe("error");
    expect(response.tool_call_id).toBe("call-1");
    expect(response.content).toContain("write_file refused: `report.md` already exists and there is no read_file of it");
    expect(response.content).toContain("Call read_file on `report.md` now");
    expect(keelMeta(response).readBeforeWrite).toEqual({ refused: "report.md", reason: "not_read" });
    expect(readFileSync(path.join(dir, "report.md"), "utf8")).toBe("# R\n");
    expect(guards).toEqual([{ action: "refuse", reason: "read_before_write", detail: "write_file report.md: no read mark" }]);
  });

  it("lets an edit through when the newest mark matches, refuses when it is stale", async () => {
    writeFileSync(path.join(dir, "report.md"), "# R\n");
    const guard = createWriteGuard(new PathLocks());
    const fresh = [markedRead("report.md", "old\n", "read-1"), markedRead("report.md", "# R\n", "read-2")];
    const ok = await guard(request("str_replace", { path: "report.md", oldText: "# R", newText: "# R2" }, fresh), fileTool, ctx());
    expect(ok.status).toBe("success");
    expect(readFileSync(path.join(dir, "report.md"), "utf8")).toBe("# R2\n");
    // The same marks are stale now: the edit itself does not count as a read.
    const again = await guard(request("str_replace", { path: "report.md", oldText: "# R2", newText: "# R3" }, fresh), fileTool, ctx());
    expect(again.status).toBe("error");
    expect(again.content).toContain("`report.md` changed since your last read_file of it");
    expect(keelMeta(again).readBeforeWrite).toEqual({ refused: "report.md", reason: "changed" });
    // An older matching mark does not help when a newer one is stale.
    const newestStale = [markedRead("report.md", "# R2\n", "read-1"), markedRead("report.md", "other\n", "read-2")];
    expect((await guard(request("write_file", { path: "report.md", content: "z" }, newestStale), fileTool, ctx())).status).toBe("error");
  });

  it("allows creating a new file without a read", async () => {
    const response = await createWriteGuard(new PathLocks())(request("write_file", { path: "new.md", content: "fresh" }), fileTool, ctx());
    expect(response.status).toBe("success");
    expect(readFileSync(path.join(dir, "new.md"), "utf8")).toBe("fresh");
  });

  it("of two parallel edits after the same read, exactly one lands", async () => {
    writeFileSync(path.join(dir, "report.md"), "# R\n");
    const guard = createWriteGuard(new PathLocks());
    const messages = [markedRead("report.md", "# R\n")];
    const [a, b] = await Promise.all([
      guard(request("str_replace", { path: "report.md", oldText: "# R\n", newText: "# R\nA\n" }, messages, "a"), fileTool, ctx()),
      guard(request("str_replace", { path: "report.md", oldText: "# R\n", newText: "# R\nB\n" }, messages, "b"), fileTool, ctx()),
    ]);
    expect([a!.status, b!.status].sort()).toEqual(["error", "success"]);
    const text = readFileSync(path.join(dir, "report.md"), "utf8");
    expect(["# R\nA\n", "# R\nB\n"]).toContain(text);
  });

  it("fails open when the file cannot be inspected or the port is unusable", async () => {
    mkdirSync(path.join(dir, "adir"));
    const guard = createWriteGuard(new PathLocks());
    const tool: ToolHandler = async ({ toolCall }) => result(toolCall.id, "the tool's own answer", "error");
    const onDir = await guard(request("write_file", { path: "adir", content: "x" }), tool, ctx());
    expect(onDir.content).toBe("the tool's own answer");
    writeFileSync(path.join(dir, "report.md"), "# R\n");
    const noPort = await guard(request("write_file", { path: "report.md", content: "x" }), tool, ctx({ enabled: true }, () => {
      throw new Error("no workspace port");
    }));
    expect(noPort.content).toBe("the tool's own answer");
    const escape = await guard(request("write_file", { path: "../outside.md", content: "x" }), tool, ctx());
    expect(escape.content).toBe("the tool's own answer");
    expect(guards).toEqual([]);
  });

  it("leaves other tools alone", async () => {
    writeFileSync(path.join(dir, "report.md"), "# R\n");
    const response = await createWriteGuard(new PathLocks())(request("bash", { command: "echo hi > report.md", path: "report.md" }), async () => result("call-1", "ran"), ctx());
    expect(response.content).toBe("ran");
    expect(keelMeta(response)).toEqual({});
  });
});
