/**
 * Where a server keeps its thread workspaces: where `--workspaces DIR` says, or else a
 * directory derived from `--db`, so that two servers on different databases never share
 * a workspace, and two workers on one database (scale-out) do. See tools/serve/README.md.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { KeelError } from "../../kernel/errors.js";
import { parseStoreUrl } from "../../plugins/store-sql/index.js";

/** The workspaces directory of earlier releases: `.keel/workspaces`, beside the default `keel.db`. */
export const LEGACY_WORKSPACES = "workspaces";
/** The suffix of a SQLite store file's own workspaces directory: `keel.db` → `keel.db.workspaces`. */
export const WORKSPACES_SUFFIX = ".workspaces";
const LEGACY_STORE_FILE = "keel.db";

export interface WorkspacesDir {
  /** Absolute. */
  dir: string;
  /** A directory of this server only (an in-memory database's), removed when it stops. */
  temporary: boolean;
}

/**
 * The default workspaces directory for a store URL, resolved against `cwd`:
 * - `sqlite:PATH`: `PATH.workspaces` beside the database file (whose own tables hold
 *   its checkpoints). For a file named `keel.db`, the `workspaces` directory of an
 *   earlier release beside it is used while it exists and `keel.db.workspaces` does not.
 * - `sqlite::memory:`: a fresh `.keel/workspaces-memory-XXXXXX` (created here), temporary.
 * - `postgres://…`: `.keel/workspaces-DATABASE-HASH`, HASH naming host, port and
 *   database (not the credentials): workers on one database in one directory share it.
 */
export function defaultWorkspacesDir(db: string, cwd: string): WorkspacesDir {
  const target = parseStoreUrl(db);
  if (target.dialect === "postgres") {
    const url = new URL(target.url);
    const database = url.pathname.replace(/^\//, "") || "postgres";
    const hash = createHash("sha256").update(`${url.hostname}:${url.port || "5432"}/${database}`).digest("hex").slice(0, 10);
    return { dir: resolve(cwd, ".keel", `workspaces-${database.replace(/[^A-Za-z0-9_-]/g, "_")}-${hash}`), temporary: false };
  }
  if (target.path === ":memory:") {
    mkdirSync(resolve(cwd, ".keel"), { recursive: true });
    return { dir: mkdtempSync(join(resolve(cwd, ".keel"), "workspaces-memory-")), temporary: true };
  }
  const file = resolve(cwd, target.path);
  const own = file + WORKSPACES_SUFFIX;
  if (basename(file) === LEGACY_STORE_FILE) {
    const legacy = join(dirname(file), LEGACY_WORKSPACES);
    if (!existsSync(own) && existsSync(legacy)) return { dir: legacy, temporary: false };
  }
  return { dir: own, temporary: false };
}

/** `--workspaces DIR` or the default for `--db`, created; a path that is not a directory is `KEEL_ERR_SERVE_CONFIG`. */
export function prepareWorkspacesDir(flag: string | undefined, db: string, cwd: string): WorkspacesDir {
  const chosen = flag !== undefined ? { dir: resolve(cwd, flag), temporary: false } : defaultWorkspacesDir(db, cwd);
  if (existsSync(chosen.dir) && !statSync(chosen.dir).isDirectory()) {
    throw new KeelError("KEEL_ERR_SERVE_CONFIG", `workspaces directory \`${chosen.dir}\` exists and is not a directory; pass --workspaces DIR`);
  }
  mkdirSync(chosen.dir, { recursive: true });
  return chosen;
}
