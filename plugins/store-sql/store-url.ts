import { basename, dirname, join } from "node:path";
import { KeelError } from "../../kernel/errors.js";

export const DEFAULT_STORE_URL = "sqlite:./.keel/keel.db";
/** LangGraph's checkpoints go to their own file beside the store's: two drivers never share one SQLite file. */
export const CHECKPOINTS_FILE = "checkpoints.db";
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

/** The checkpoint file for a SQLite store file: `checkpoints.db` in the same directory. */
export function checkpointsPathFor(storePath: string): string {
  if (storePath === SQLITE_MEMORY) return SQLITE_MEMORY;
  if (basename(storePath) === CHECKPOINTS_FILE) {
    throw new KeelError(
      "KEEL_ERR_STORE_URL_INVALID",
      `store file \`${storePath}\` is named like the checkpoint file beside it; name it e.g. \`keel.db\``,
    );
  }
  return join(dirname(storePath), CHECKPOINTS_FILE);
}

/** What a PostgreSQL store needs installed (optional peer dependencies): the run store's driver and the checkpointer. */
export const POSTGRES_PACKAGES = "@mikro-orm/postgresql @langchain/langgraph-checkpoint-postgres";
