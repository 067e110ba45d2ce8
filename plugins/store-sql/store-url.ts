import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { KeelError } from "../../kernel/errors.js";

export const DEFAULT_STORE_URL = "sqlite:./.keel/keel.db";
/**
 * The checkpoint file of earlier releases: `checkpoints.db` beside the store file, shared
 * by every store file of the directory. Still read for a store file named `keel.db` (the
 * default) that has no checkpoint file of its own yet.
 */
export const CHECKPOINTS_FILE = "checkpoints.db";
/** The suffix of a store file's own checkpoint file: `keel.db` → `keel.db.checkpoints.db`. */
export const CHECKPOINTS_SUFFIX = ".checkpoints.db";
const DEFAULT_STORE_FILE = "keel.db";
export const SQLITE_MEMORY = ":memory:";

export type StoreTarget =
  /** `path` is a file path (relative to the working directory) or `:memory:`. */
  | { dialect: "sqlite"; path: string }
  | { dialect: "postgres"; url: string };

/**
 * Where a store URL points. `sqlite:PATH` (also `sqlite://PATH`), `sqlite::memory:`
 * (one private database per store instance: tests only), `postgres://…` or
 * `postgresql://…`.
 *
 * @example
 * parseStoreUrl("sqlite:./.keel/keel.db") // { dialect: "sqlite", path: "./.keel/keel.db" }
 */
export function parseStoreUrl(url: string): StoreTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: "postgres", url };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(url);
  if (sqlite) return { dialect: "sqlite", path: sqlite[1]! };
  throw new KeelError(
    "KEEL_ERR_STORE_URL_INVALID",
    `store URL \`${url}\` is not \`sqlite:PATH\`, \`sqlite::memory:\` or \`postgres://…\``,
  );
}

/**
 * The checkpoint file of a SQLite store file, its own: `PATH.checkpoints.db`, so two
 * store files in one directory never share checkpoints. One exception keeps an upgraded
 * default install's threads: for a store file named `keel.db`, the shared
 * `checkpoints.db` of earlier releases beside it is used while it exists and
 * `keel.db.checkpoints.db` does not. A store file named `checkpoints.db` is refused (it
 * is that legacy file's name).
 *
 * @example
 * checkpointsPathFor("./.keel/keel.db") // ".keel/keel.db.checkpoints.db" (or ".keel/checkpoints.db" from an earlier release)
 * checkpointsPathFor("./data/a.db")     // "data/a.db.checkpoints.db"
 */
export function checkpointsPathFor(storePath: string): string {
  if (storePath === SQLITE_MEMORY) return SQLITE_MEMORY;
  if (basename(storePath) === CHECKPOINTS_FILE) {
    throw new KeelError(
      "KEEL_ERR_STORE_URL_INVALID",
      `store file \`${storePath}\` is named like the checkpoint file of earlier releases; name it e.g. \`keel.db\``,
    );
  }
  const own = join(dirname(storePath), basename(storePath) + CHECKPOINTS_SUFFIX);
  if (basename(storePath) === DEFAULT_STORE_FILE) {
    const legacy = join(dirname(storePath), CHECKPOINTS_FILE);
    if (!existsSync(own) && existsSync(legacy)) return legacy;
  }
  return own;
}

/** What a PostgreSQL store needs installed (optional peer dependencies): the run store's driver and the checkpointer. */
export const POSTGRES_PACKAGES = "@mikro-orm/postgresql @langchain/langgraph-checkpoint-postgres";
