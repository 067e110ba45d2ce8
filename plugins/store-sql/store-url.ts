import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { KeelError } from "../../kernel/errors.js";

export const DEFAULT_STORE_URL = "sqlite:./.keel/keel.db";
/**
 * The checkpoint file of earlier releases: `checkpoints.db` beside the store file, shared
 * by every store file of the directory. Checkpoints now live in the store file itself;
 * this file is migrated once into a store file named `keel.db` (the default).
 */
export const CHECKPOINTS_FILE = "checkpoints.db";
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
 * The stock checkpoint file an earlier release wrote for this store file, to migrate
 * once: `checkpoints.db` beside a store file named `keel.db` (the default), if it exists.
 * Other store files get none: that file was shared by every store file of the directory,
 * so its threads may belong to another database. A store file named `checkpoints.db` is
 * refused (it is that legacy file's name).
 *
 * @example
 * stockCheckpointsPathFor("./.keel/keel.db") // ".keel/checkpoints.db" when it exists, else undefined
 * stockCheckpointsPathFor("./data/a.db")     // undefined
 */
export function stockCheckpointsPathFor(storePath: string): string | undefined {
  if (storePath === SQLITE_MEMORY) return undefined;
  if (basename(storePath) === CHECKPOINTS_FILE) {
    throw new KeelError(
      "KEEL_ERR_STORE_URL_INVALID",
      `store file \`${storePath}\` is named like the checkpoint file of earlier releases; name it e.g. \`keel.db\``,
    );
  }
  if (basename(storePath) !== DEFAULT_STORE_FILE) return undefined;
  const legacy = join(dirname(storePath), CHECKPOINTS_FILE);
  return existsSync(legacy) ? legacy : undefined;
}

/** What a PostgreSQL store needs installed (optional peer dependencies): the run store's driver and the checkpointer. */
export const POSTGRES_PACKAGES = "@mikro-orm/postgresql @langchain/langgraph-checkpoint-postgres";
