import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { resolveInWorkspace } from "./paths.js";

export interface WorkspaceFileDigest {
  bytes: number;
  /** sha256 of the content, 64 lowercase hex digits. */
  sha256: string;
}

/**
 * Write `files` (relative POSIX path → content) into the workspace `dir`, creating
 * parent directories. A path that escapes `dir` throws `KEEL_ERR_WORKSPACE_ESCAPE`
 * before anything of it is written.
 *
 * @example
 * seedWorkspace(workspaceDir(config, threadId), { "notes.md": "# Notes\n" });
 */
export function seedWorkspace(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [userPath, content] of Object.entries(files)) {
    const target = resolveInWorkspace(dir, userPath);
    mkdirSync(path.dirname(target.abs), { recursive: true });
    writeFileSync(target.abs, content, "utf8");
  }
}

/**
 * Every regular file under `dir` (recursively; symlinks are skipped, never
 * followed), keyed by relative POSIX path in sorted order, with its size and sha256.
 * A missing `dir` is an empty workspace.
 *
 * @example
 * snapshotWorkspace(dir) // { "notes.md": { bytes: 8, sha256: "…" } }
 */
export function snapshotWorkspace(dir: string): Record<string, WorkspaceFileDigest> {
  const found: Array<[string, WorkspaceFileDigest]> = [];
  if (existsSync(dir)) collect(dir, "", found);
  found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(found);
}

function collect(absDir: string, relDir: string, out: Array<[string, WorkspaceFileDigest]>): void {
  for (const entry of readdirSync(absDir, { withFileTypes: true })) {
    const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
    const abs = path.join(absDir, entry.name);
    // Dirent types come from lstat: a symlink is neither a file nor a directory here.
    if (entry.isDirectory()) collect(abs, rel, out);
    else if (entry.isFile()) {
      const content = readFileSync(abs);
      out.push([rel, { bytes: content.length, sha256: createHash("sha256").update(content).digest("hex") }]);
    }
  }
}
