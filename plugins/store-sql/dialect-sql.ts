/**
 * The few statements that differ between SQLite and PostgreSQL: the admission lock on
 * a thread and the metadata filter of thread search.
 */
import type { SqlEntityManager } from "@mikro-orm/sqlite";
import { THREADS_TABLE } from "./entities.js";
import type { StoreTarget } from "./store-url.js";

export type Dialect = StoreTarget["dialect"];

/**
 * Takes the admission lock on a thread inside the caller's transaction and tells whether
 * the thread exists.
 *
 * PostgreSQL: `SELECT … FOR UPDATE` locks the thread row until commit, so concurrent
 * admissions on one thread run one after the other (admissions on other threads do not wait).
 *
 * SQLite has one writer per database and no row locks. knex opens transactions with a
 * plain (deferred) `BEGIN`, which would let two admissions both read "no active run"
 * and then collide when upgrading to write. Making the first statement a write takes the
 * write lock at once, waiting up to busy_timeout for another writer: the effect of
 * `BEGIN IMMEDIATE`, which knex cannot issue. The write changes nothing.
 */
export async function lockThreadForAdmission(em: SqlEntityManager, dialect: Dialect, threadId: string): Promise<boolean> {
  if (dialect === "postgres") {
    const rows = await em.execute<unknown[]>(`select thread_id from ${THREADS_TABLE} where thread_id = ? for update`, [threadId], "all");
    return rows.length === 1;
  }
  const result = await em.execute<{ affectedRows: number }>(
    `update ${THREADS_TABLE} set updated_at = updated_at where thread_id = ?`,
    [threadId],
    "run",
  );
  return result.affectedRows === 1;
}

/**
 * Serializes admissions of one user across threads (the per-user active-run limit is
 * counted inside the transaction). PostgreSQL: a transaction-scoped advisory lock on the
 * user's name. SQLite: the admission already holds the database's single write lock.
 */
export async function lockUserForAdmission(em: SqlEntityManager, dialect: Dialect, user: string): Promise<void> {
  if (dialect !== "postgres") return;
  await em.execute("select pg_advisory_xact_lock(hashtext(?))", [`keel-user:${user}`], "all");
}

/**
 * A WHERE fragment (with its parameters) matching threads whose metadata holds `value`
 * under the top-level `key`, compared as JSON. `alias` is the threads table's alias.
 *
 * PostgreSQL compares jsonb values (deep, key order ignored). SQLite renders the stored
 * value as JSON text and compares it with the filter value's JSON text: scalars and
 * arrays compare exactly, nested objects only when their keys are in the same order.
 * `json_each` is used rather than a JSON path because a path cannot name every key
 * (a key containing `"` has no path).
 */
export function metadataEquals(dialect: Dialect, alias: string, key: string, value: unknown): { sql: string; params: unknown[] } {
  const json = JSON.stringify(value);
  if (dialect === "postgres") {
    return { sql: `(${alias}.metadata::jsonb -> ?) = ?::jsonb`, params: [key, json] };
  }
  return {
    sql:
      `exists (select 1 from json_each(${alias}.metadata) as m where m.key = ? and ` +
      `(case m.type when 'true' then 'true' when 'false' then 'false' when 'null' then 'null' else json_quote(m.value) end) = json(?))`,
    params: [key, json],
  };
}
