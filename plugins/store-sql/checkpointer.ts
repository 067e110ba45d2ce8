/**
 * LangGraph checkpointers matching a store URL: SqliteSaver on its own file beside the
 * store's (`./.keel/checkpoints.db` for the default URL; two drivers never share one
 * SQLite file), or PostgresSaver on the store's PostgreSQL database (its own tables).
 * The PostgreSQL saver is an optional peer dependency, imported only for a PostgreSQL URL.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { importOptional } from "../../kernel/optional-import.js";
import { DeferredCheckpointSaver } from "./deferred-checkpointer.js";
import { SQLITE_BUSY_TIMEOUT_MS } from "./open-orm.js";
import { checkpointsPathFor, DEFAULT_STORE_URL, parseStoreUrl, POSTGRES_PACKAGES, SQLITE_MEMORY } from "./store-url.js";

export type KeelCheckpointer = SqliteSaver | PostgresSaver;

/** SQLite is synchronous (better-sqlite3), so this saver is ready when returned. */
function openSqliteSaver(storePath: string): SqliteSaver {
  const path = checkpointsPathFor(storePath);
  if (path !== SQLITE_MEMORY) mkdirSync(dirname(path), { recursive: true });
  const saver = SqliteSaver.fromConnString(path);
  saver.db.pragma("journal_mode = WAL");
  saver.db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  return saver;
}

/**
 * PostgresSaver's setup runs its migrations; two workers starting together on a fresh
 * database can collide there, and the loser's retry finds the migrations applied.
 */
async function openPostgresSaver(url: string): Promise<PostgresSaver> {
  const { PostgresSaver } = await importOptional(
    "@langchain/langgraph-checkpoint-postgres",
    "a PostgreSQL checkpointer (`--db postgres://…`)",
    () => import("@langchain/langgraph-checkpoint-postgres"),
    POSTGRES_PACKAGES,
  );
  const saver = PostgresSaver.fromConnString(url);
  try {
    await saver.setup();
  } catch {
    await saver.setup();
  }
  return saver;
}

/**
 * The checkpointer for a store URL, with its tables created.
 *
 * @example
 * const checkpointer = await createCheckpointer("sqlite:./.keel/keel.db"); // uses ./.keel/checkpoints.db
 * graph.compile({ checkpointer });
 * await closeCheckpointer(checkpointer);
 */
export async function createCheckpointer(url: string = DEFAULT_STORE_URL): Promise<KeelCheckpointer> {
  const target = parseStoreUrl(url);
  if (target.dialect === "sqlite") return openSqliteSaver(target.path);
  return openPostgresSaver(target.url);
}

/**
 * The same, usable at once: for port factories, which the kernel calls synchronously.
 * A PostgreSQL saver defers every call until its setup finished.
 */
export function createCheckpointerNow(url: string = DEFAULT_STORE_URL): BaseCheckpointSaver {
  const target = parseStoreUrl(url);
  if (target.dialect === "sqlite") return openSqliteSaver(target.path);
  return new DeferredCheckpointSaver(openPostgresSaver(target.url), closeCheckpointer);
}

/** Releases the saver's database handle or connection pool. */
export async function closeCheckpointer(saver: BaseCheckpointSaver): Promise<void> {
  if (saver instanceof SqliteSaver) saver.db.close();
  else if (saver instanceof DeferredCheckpointSaver) await saver.close();
  else if (hasEnd(saver)) await saver.end();
}

/** PostgresSaver (its pool closes with `end()`), recognised without importing its optional package. */
function hasEnd(saver: BaseCheckpointSaver): saver is BaseCheckpointSaver & { end(): Promise<void> } {
  return typeof (saver as { end?: unknown }).end === "function";
}
