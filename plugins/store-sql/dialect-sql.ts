/**
 * Statements that differ between SQLite and PostgreSQL: the metadata filter of thread
 * search (the admission transaction of each is in admission-sql.ts).
 */
import type { StoreTarget } from "./store-url.js";

export type Dialect = StoreTarget["dialect"];

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
