/**
 * Workspace writes are fenced by the run's lease: a file tool checks `ctx.fence` right
 * before it writes (refused → an error result, nothing written, nothing logged) and
 * records every write with its epoch in the thread's write log.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leaseFenced, type RunFence } from "../../../kernel/ports/fence.js";
import type { ToolContext } from "../../../kernel/plugin/types.js";
import { bashTool } from "../../../plugins/workspace/bash.js";
import { workspaceDir } from "../../../plugins/workspace/paths.js";
import { readWriteLog, strReplaceTool, writeFileTool, writeLogPath } from "../../../plugins/workspace/index.js";

let root: string;
let held: boolean;

function fence(epoch: number, leaseEpoch?: number): RunFence {
  return {
    runId: "run-1",
    epoch,
    ...(leaseEpoch === undefined ? {} : { leaseEpoch }),
    get held() {
      return held;
    },
    assertHeld(what = "a write") {
      if (!held) throw leaseFenced("run-1", epoch, what, "the lease was lost");
    },
  };
}

const ctxWith = (f: RunFence | undefined, toolCallId = "call-1", agent = "lead"): ToolContext => ({
  threadId: "thread-1",
  runId: "run-1",
  agent,
  turn: 1,
  toolCallId,
  config: { root },
  signal: new AbortController().signal,
  now: () => "2026-01-01T00:00:00.000Z",
  ...(f ? { fence: f } : {}),
});

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-fence-"));
  held = true;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("fenced workspace writes", () => {
  it("records each write with its epoch (and a child's lease epoch) in the thread's write log, in order", async () => {
    await writeFileTool.invoke({ path: "a.txt", content: "one" }, ctxWith(fence(3), "c1"));
    await strReplaceTool.invoke({ path: "a.txt", oldText: "one", newText: "two" }, ctxWith(fence(3, 1), "c2", "lead/c9"));
    const log = await readWriteLog({ root }, "thread-1");
    expect(log).toEqual([
      { at: "2026-01-01T00:00:00.000Z", threadId: "thread-1", runId: "run-1", agent: "lead", toolCallId: "c1", tool: "write_file", path: "a.txt", bytes: 3, epoch: 3 },
      { at: "2026-01-01T00:00:00.000Z", threadId: "thread-1", runId: "run-1", agent: "lead/c9", toolCallId: "c2", tool: "str_replace", path: "a.txt", bytes: 3, epoch: 3, leaseEpoch: 1 },
    ]);
    // Beside the workspaces, never inside one: the model cannot see or edit it.
    expect(writeLogPath({ root }, "thread-1").startsWith(path.join(root, "thread-1") + path.sep)).toBe(false);
  });

  it("write_file after the lease was lost: an error result, the file untouched, nothing logged", async () => {
    await writeFileTool.invoke({ path: "a.txt", content: "before" }, ctxWith(fence(2)));
    held = false;
    const result = await writeFileTool.invoke({ path: "a.txt", content: "after" }, ctxWith(fence(2), "c2"));
    expect(result).toMatchObject({ status: "error" });
    expect((result as { content: string }).content).toMatch(/^KEEL_ERR_LEASE_FENCED: `write_file` of `a.txt` of run run-1 under epoch 2 refused/);
    expect(readFileSync(path.join(root, "thread-1", "a.txt"), "utf8")).toBe("before");
    expect((await readWriteLog({ root }, "thread-1")).map((w) => w.toolCallId)).toEqual(["call-1"]);
    // A new file is not even created.
    const fresh = await writeFileTool.invoke({ path: "new/b.txt", content: "x" }, ctxWith(fence(2), "c3"));
    expect(fresh).toMatchObject({ status: "error" });
    expect(existsSync(path.join(root, "thread-1", "new"))).toBe(false);
  });

  it("str_replace after the lease was lost: refused, the file untouched", async () => {
    mkdirSync(path.join(root, "thread-1"), { recursive: true });
    writeFileSync(path.join(root, "thread-1", "code.ts"), "const a = 1;\n");
    held = false;
    const result = await strReplaceTool.invoke({ path: "code.ts", oldText: "1", newText: "2" }, ctxWith(fence(5)));
    expect((result as { content: string }).content).toMatch(/^KEEL_ERR_LEASE_FENCED:/);
    expect(readFileSync(path.join(root, "thread-1", "code.ts"), "utf8")).toBe("const a = 1;\n");
    expect(await readWriteLog({ root }, "thread-1")).toEqual([]);
  });

  it("a run without a lease writes with epoch null", async () => {
    await writeFileTool.invoke({ path: "a.txt", content: "x" }, ctxWith(undefined));
    expect((await readWriteLog({ root }, "thread-1"))[0]).toMatchObject({ epoch: null, tool: "write_file" });
  });
  it("bash after the lease was lost: not started (its file never appears); with the lease held it runs", async () => {
    held = false;
    const refused = await bashTool.invoke({ command: "echo late > late.txt" }, ctxWith(fence(4)));
    expect((refused as { content: string }).content).toMatch(/^KEEL_ERR_LEASE_FENCED: `bash` of `.` of run run-1 under epoch 4 refused/);
    expect(existsSync(path.join(root, "thread-1", "late.txt"))).toBe(false);
    held = true;
    await bashTool.invoke({ command: "echo held > held.txt" }, ctxWith(fence(4)));
    expect(readFileSync(path.join(root, "thread-1", "held.txt"), "utf8")).toBe("held\n");
  });

  it("refuses the write log's directory name as a thread id", () => {
    expect(() => workspaceDir({ root }, ".keel-write-log")).toThrow(/KEEL_ERR_WORKSPACE_ESCAPE|reserved/);
  });
});
