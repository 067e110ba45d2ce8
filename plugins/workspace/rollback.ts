/**
 * A rollback point for a thread's workspace directory: a full copy taken before the run
 * (symlinks copied as links, never followed). Restoring stages a second copy next to
 * the workspace, then swaps the directories with renames, so the workspace is never
 * seen half-restored; `abort` drops the staged copy and leaves the workspace untouched.
 */
import { randomUUID } from "node:crypto";
import { cp, lstat, mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { RollbackPort, StagedRollback } from "../../kernel/ports/rollback.js";
import { workspaceDir } from "./paths.js";

/** The `rollback` port of the workspace plugin: the thread's directory, copied before each run. */
export function workspaceRollbackPort(config: Readonly<Record<string, unknown>>): RollbackPort {
  return { capture: (threadId, { scratchDir }) => captureWorkspaceRollback(workspaceDir(config, threadId), scratchDir) };
}

const COPY_OPTIONS = { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, errorOnExist: true, force: false } as const;

/** Null when the copy cannot be taken (rollback is then unavailable). */
export async function captureWorkspaceRollback(dir: string, scratchRoot: string): Promise<StagedRollback | null> {
  let holder: string | undefined;
  try {
    const existed = await isDirectory(dir);
    holder = await mkdtemp(path.join(scratchRoot, "keel-rollback-"));
    const copy = path.join(holder, "workspace");
    if (existed) await cp(dir, copy, COPY_OPTIONS);
    const scratch = holder;
    return {
      async prepare() {
        const tag = randomUUID().slice(0, 8);
        const staged = `${dir}.keel-restore-${tag}`;
        if (existed) await cp(copy, staged, COPY_OPTIONS);
        return {
          async commit() {
            const discarded = `${dir}.keel-discard-${tag}`;
            if (await isDirectory(dir)) await rename(dir, discarded);
            if (existed) await rename(staged, dir);
            await rm(discarded, { recursive: true, force: true });
          },
          abort: () => rm(staged, { recursive: true, force: true }),
        };
      },
      release: () => rm(scratch, { recursive: true, force: true }),
    };
  } catch {
    if (holder) await rm(holder, { recursive: true, force: true }).catch(() => undefined);
    return null;
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await lstat(dir)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
