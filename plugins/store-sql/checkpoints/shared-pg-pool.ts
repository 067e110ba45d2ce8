/**
 * The checkpointer's `PgPool` on the run store's shared database (shared-database.ts): its
 * clients are the connections of MikroORM's pool (knex's pg client, tarn's pool), so a
 * worker's checkpointer opens no pool of its own on PostgreSQL (README, "One connection
 * pool"). A client released with an error is marked disposed, so the pool discards it
 * instead of handing it out again (knex's own rule for a connection that emitted `error`).
 * `end()` releases this holder's share of the database; the last holder closes the pool.
 */
import type { SharedDatabase } from "../shared-database.js";
import type { PgClient, PgNamedQuery, PgPool } from "./postgres-executor.js";
import type { SqlRow } from "./sql-executor.js";

/** A raw `pg` client as knex's pool holds it; knex marks a broken one `__knex__disposed`. */
interface KnexPgConnection {
  query(sql: string | PgNamedQuery, params?: unknown[]): Promise<{ rows: SqlRow[] }>;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
  __knex__disposed?: unknown;
}

interface KnexPgClient {
  acquireConnection(): Promise<KnexPgConnection>;
  releaseConnection(connection: KnexPgConnection): unknown;
}

export function sharedPgPool(db: SharedDatabase): PgPool {
  if (db.dialect !== "postgres") throw new Error("sharedPgPool needs a PostgreSQL database");
  const knex = (db.orm.em.getConnection().getKnex() as unknown as { client: KnexPgClient }).client;
  let ended: Promise<void> | undefined;

  const connect = async (): Promise<PgClient> => {
    const connection = await knex.acquireConnection();
    let released = false;
    return {
      query: (sql, params) => connection.query(sql, params),
      on: (event, listener) => connection.on(event, listener),
      removeListener: (event, listener) => connection.removeListener(event, listener),
      release(error) {
        if (released) return;
        released = true;
        if (error) connection.__knex__disposed ??= error === true ? "released as broken by the checkpointer" : error;
        void Promise.resolve(knex.releaseConnection(connection)).catch(() => undefined);
      },
    };
  };

  return {
    async query(sql, params) {
      const client = await connect();
      try {
        const result = await client.query(sql, params);
        client.release();
        return result;
      } catch (error) {
        // A failed statement leaves a healthy connection; a dead one was marked by knex.
        client.release();
        throw error;
      }
    },
    connect,
    end: () => (ended ??= db.release()),
    // Connection errors are knex's to absorb (it listens on every connection it made).
    on: () => undefined,
  };
}
