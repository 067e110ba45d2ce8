import { lstatSync, mkdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { KeelError } from "../../kernel/errors.js";
import { readWorkspaceOptions } from "./options.js";
import { WRITE_LOG_DIR } from "./write-log.js";

/** A path inside a workspace: `abs` to operate on, `rel` (POSIX, `.` for the root) to show. */
export interface WorkspacePath {
  abs: string;
  rel: string;
}

/** Symlink hops followed before giving up (the same bound as Linux's ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The directory of one thread: `<root>/<threadId>`, `root` resolved against
 * `process.cwd()` when relative. Not created here (the tools create it on first use).
 * A thread id that is not a single path segment is refused, since it could name a
 * directory outside `root`; so is the write log's directory name (`.keel-write-log`).
 *
 * @example
 * workspaceDir({ root: "/tmp/ws" }, "t-1") // "/tmp/ws/t-1"
 */
export function workspaceDir(config: Readonly<Record<string, unknown>> | undefined, threadId: string): string {
  if (threadId.length === 0 || threadId === "." || threadId === ".." || threadId === WRITE_LOG_DIR || /[/\\\0]/.test(threadId)) {
    throw new KeelError("KEEL_ERR_WORKSPACE_ESCAPE", `thread id \`${threadId}\` is not a single path segment (or is the reserved \`${WRITE_LOG_DIR}\`), so it cannot name a workspace directory`);
  }
  return path.resolve(process.cwd(), readWorkspaceOptions(config).root, threadId);
}

/** Create the workspace directory if needed and return its real path (symlinks resolved). */
export function ensureWorkspace(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/** A problem with a path argument that is not an escape (empty, NUL byte). */
export function checkPathArgument(value: unknown, name = "path"): string | undefined {
  if (typeof value !== "string" || value.length === 0) return `\`${name}\` must be a non-empty string`;
  if (value.includes("\0")) return `\`${name}\` must not contain a NUL byte`;
  return undefined;
}

/**
 * Resolve `userPath` (relative to the workspace, or absolute inside it) and refuse it
 * with `KEEL_ERR_WORKSPACE_ESCAPE` when it leaves the workspace: lexically (`..`,
 * an absolute path elsewhere) or physically (a symlink on the way, or the target
 * itself, resolving outside). Missing parts are resolved through their nearest existing
 * ancestor, and dangling symlinks through their link text, so a write cannot create a
 * file outside either.
 */
export function resolveInWorkspace(dir: string, userPath: string): WorkspacePath {
  const lexicalRoot = path.resolve(dir);
  const realRoot = ensureWorkspace(lexicalRoot);
  const candidate = path.isAbsolute(userPath) ? path.resolve(userPath) : path.resolve(lexicalRoot, userPath);
  // An absolute path may name the workspace by its given location or by its real one.
  const rel = relativeInside(lexicalRoot, candidate) ?? relativeInside(realRoot, candidate);
  if (rel === undefined) throw escape(userPath, "it is outside the workspace");
  const abs = rel === "." ? realRoot : path.join(realRoot, rel);
  let real: string;
  try {
    real = physicalPath(abs, 0);
  } catch (error) {
    if (error instanceof KeelError) throw escape(userPath, error.message);
    throw error;
  }
  if (relativeInside(realRoot, real) === undefined) throw escape(userPath, "it resolves through a symlink to a place outside the workspace");
  return { abs, rel: rel.split(path.sep).join("/") };
}

function escape(userPath: string, why: string): KeelError {
  return new KeelError("KEEL_ERR_WORKSPACE_ESCAPE", `refused path \`${userPath}\`: ${why}; use a path relative to the workspace root`);
}

/** `p` relative to `root` when `p` is `root` or inside it ("." for the root itself). */
function relativeInside(root: string, p: string): string | undefined {
  const r = path.relative(root, p);
  if (r === "") return ".";
  if (r === ".." || r.startsWith(`..${path.sep}`) || path.isAbsolute(r)) return undefined;
  return r;
}

/** Where `p` really is (or would be, once created): realpath, extended to missing paths and dangling symlinks. */
function physicalPath(p: string, hops: number): string {
  if (hops > MAX_LINK_HOPS) throw new KeelError("KEEL_ERR_WORKSPACE_ESCAPE", "too many levels of symlinks");
  try {
    return realpathSync(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new KeelError("KEEL_ERR_WORKSPACE_ESCAPE", "it goes through a symlink loop");
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = physicalPath(parent, hops);
  const stat = lstatOrUndefined(p);
  if (stat?.isSymbolicLink()) {
    return physicalPath(path.resolve(realParent, readlinkSync(p)), hops + 1);
  }
  return path.join(realParent, path.basename(p));
}

function lstatOrUndefined(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
