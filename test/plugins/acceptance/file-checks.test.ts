import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkspacePort } from "../../../kernel/ports/workspace.js";
import { evaluateAcceptance, type AcceptanceEvidence } from "../../../plugins/acceptance/index.js";
import { workspaceDir, workspacePlugin } from "../../../plugins/workspace/index.js";

const threadId = "t-accept";
let root: string;
let dir: string;
let evidence: AcceptanceEvidence;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-accept-"));
  const workspace = workspacePlugin.services!.workspace!({ root }) as WorkspacePort;
  dir = workspaceDir({ root }, threadId);
  mkdirSync(dir, { recursive: true });
  evidence = { workspace, threadId, bashRuns: [], filesWritten: [] };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function put(rel: string, content: string | Buffer) {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), content);
}

async function leaf(criterion: string, extra: Partial<AcceptanceEvidence> = {}, options = {}) {
  const verdict = await evaluateAcceptance([criterion], { ...evidence, ...extra }, options);
  const { checked, holds, detail, family } = verdict.leaves[0]!;
  return { family, checked, holds, detail };
}

describe("file leaves", () => {
  it("exists: holds with the size, or does not hold when missing", async () => {
    put("out.md", "hello");
    expect(await leaf("file:out.md exists")).toEqual({ family: "file", checked: true, holds: true, detail: "exists, 5 bytes" });
    expect(await leaf("file:./out.md EXISTS")).toEqual({ family: "file", checked: true, holds: true, detail: "exists, 5 bytes" });
    expect(await leaf("file:gone.md exists")).toEqual({ family: "file", checked: true, holds: false, detail: "file does not exist" });
  });

  it("non-empty: reads back small files, rejects empty ones and directories", async () => {
    put("notes.md", "twelve bytes");
    put("empty.md", "");
    mkdirSync(path.join(dir, "sub"));
    expect(await leaf("file:notes.md non-empty")).toEqual({ family: "file", checked: true, holds: true, detail: "read-back ok, 12 bytes" });
    expect(await leaf("file:empty.md non-empty")).toEqual({ family: "file", checked: true, holds: false, detail: "file is empty" });
    expect(await leaf("file:sub non-empty")).toEqual({ family: "file", checked: true, holds: false, detail: "path is a directory, not a file" });
  });

  it("holds a 60,000-byte file by size probe without reading it", async () => {
    put("big.bin", Buffer.alloc(60_000, 1));
    expect(await leaf("file:big.bin non-empty")).toEqual({
      family: "file",
      checked: true,
      holds: true,
      detail: "non-empty by size probe, 60000 bytes (not read)",
    });
    // Under a higher probe limit the same file is read back.
    expect((await leaf("file:big.bin non-empty", {}, { probeBytes: 60_000 })).detail).toBe("read-back ok, 60000 bytes");
  });

  it.each(["../outside.md", "/etc/passwd", "a/../../x.md"])("leaves %j outside the workspace unchecked", async (p) => {
    expect(await leaf(`file:${p} exists`)).toEqual({ family: "file", checked: false, holds: false, detail: "path is outside the workspace" });
  });

  it("leaves a symlink that points outside the workspace unchecked", async () => {
    writeFileSync(path.join(root, "secret.txt"), "s");
    symlinkSync(path.join(root, "secret.txt"), path.join(dir, "link.txt"));
    expect((await leaf("file:link.txt exists")).detail).toBe("path is outside the workspace");
  });
});

describe("file_written leaves", () => {
  it("holds only for a path written in the run that is still there", async () => {
    put("src/a.ts", "export {};\n");
    put("old.md", "old");
    const filesWritten = ["./src/a.ts", "deleted.md"];
    expect(await leaf("file_written:src/a.ts", { filesWritten })).toEqual({
      family: "file_written",
      checked: true,
      holds: true,
      detail: "written in the run; read-back ok, 11 bytes",
    });
    expect(await leaf("file_written:old.md", { filesWritten })).toEqual({
      family: "file_written",
      checked: true,
      holds: false,
      detail: "no successful write_file or str_replace of this path in the run",
    });
    expect((await leaf("file_written:deleted.md", { filesWritten })).detail).toBe("written in the run, but file does not exist");
  });

  it("is UNVERIFIED without a write record", async () => {
    put("a.md", "x");
    const { filesWritten: _drop, ...withoutWrites } = evidence;
    const verdict = await evaluateAcceptance(["file_written:a.md"], withoutWrites);
    expect(verdict.leaves[0]).toMatchObject({ checked: false, holds: false, detail: "no record of file writes was given" });
  });
});

describe("json_valid leaves", () => {
  const receipt = { id: "r1", toolCallId: "c1", tool: "bash", status: "success", argsSha256: "0123456789abcdef", outputSha256: "0123456789abcdef", bytes: 3, createdAt: "2026-01-01T00:00:00.000Z" };

  it("parses the file and validates it against the named contract", async () => {
    put("r.json", JSON.stringify(receipt));
    put("bad.json", JSON.stringify({ ...receipt, status: "maybe" }));
    put("broken.json", "{ not json");
    const ok = await leaf("json_valid:r.json receipt@1");
    expect(ok).toMatchObject({ family: "json_valid", checked: true, holds: true });
    expect(ok.detail).toMatch(/^parses and validates as receipt@1, \d+ bytes$/);
    const bad = await leaf("json_valid:bad.json receipt@1");
    expect(bad).toMatchObject({ checked: true, holds: false });
    expect(bad.detail).toContain("does not validate as receipt@1: /status");
    const broken = await leaf("json_valid:broken.json receipt@1");
    expect(broken).toMatchObject({ checked: true, holds: false });
    expect(broken.detail).toMatch(/^not valid JSON: /);
    expect(await leaf("json_valid:none.json receipt@1")).toMatchObject({ checked: true, holds: false, detail: "file does not exist" });
  });

  it("is UNVERIFIED for an unknown contract and uses a given validator", async () => {
    put("r.json", "{}");
    const unknown = await leaf("json_valid:r.json nosuch@1");
    expect(unknown).toMatchObject({ checked: false, holds: false });
    expect(unknown.detail).toContain("contract `nosuch@1` cannot be checked");
    const seen: unknown[] = [];
    const custom = await leaf("json_valid:r.json thing@3", {
      contractValidate: (ref, payload) => {
        seen.push([ref, payload]);
        return { valid: false, errors: [{ pointer: "/x", message: "is required" }] };
      },
    });
    expect(seen).toEqual([["thing@3", {}]]);
    expect(custom.detail).toBe("does not validate as thing@3: /x: is required");
  });
});

describe("undecidable leaves", () => {
  it("are unchecked and listed in `unchecked`", async () => {
    const verdict = await evaluateAcceptance(["the report is convincing"], evidence);
    expect(verdict).toEqual({
      source: "acceptance_checklist",
      leaves: [{ criterion: "the report is convincing", family: "undecidable", checked: false, holds: false, detail: "not deterministically checkable" }],
      unchecked: ["the report is convincing"],
      allHold: false,
    });
  });
});
