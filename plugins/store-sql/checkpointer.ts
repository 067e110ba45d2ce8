/**
 * LangGraph checkpointers matching a store URL: SqliteSaver on its own file beside the
 * store's (`./.keel/checkpoints.db` for the default URL; two drivers never share one
 * SQLite file), or PostgresSaver on the store's PostgreSQL database (its own tables).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { DeferredCheckpointSaver } from "./deferred-checkpointer.js";
import { SQLITE_BUSY_TIMEOUT_MS } from "./open-orm.js";
import { checkpointsPathFor, DEFAULT_STORE_URL, parseStoreUrl, SQLITE_MEMORY } from "./store-url.js";

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
async function setUpPostgresSaver(saver: PostgresSaver): Promise<PostgresSaver> {
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
  return setUpPostgresSaver(PostgresSaver.fromConnString(target.url));
}

/**
 * The same, usable at once: for port factories, which the kernel calls synchronously.
 * A PostgreSQL saver defers every call until its setup finished.
 */
export function createCheckpointerNow(url: string = DEFAULT_STORE_URL): BaseCheckpointSaver {
  const target = parseStoreUrl(url);
  if (target.dialect === "sqlite") return openSqliteSaver(target.path);
  return new DeferredCheckpointSaver(setUpPostgresSaver(PostgresSaver.fromConnString(target.url)), closeCheckpointer);
}

/** Releases the saver's database handle or connection pool. */
export async function closeCheckpointer(saver: BaseCheckpointSaver): Promise<void> {
  if (saver instanceof PostgresSaver) await saver.end();
  else if (saver instanceof SqliteSaver) saver.db.close();
  else if (saver instanceof DeferredCheckpointSaver) await saver.close();
}
