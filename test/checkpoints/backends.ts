/**
 * The databases the checkpointer tests run on: SQLite always (a private in-memory
 * database per saver), PostgreSQL when KEEL_TEST_PG_URL (default the local server) is
 * reachable — each saver in its own fresh schema, so helpers sharing the server never
 * clash. Locally an unreachable server skips with a printed reason; with CI=true it fails.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { KeelCheckpointSaver, type KeelCheckpointSaverOptions } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { numberPlaceholders, PostgresExecutor, type PgPool } from "../../plugins/store-sql/checkpoints/postgres-executor.js";
import { SqliteExecutor, type BetterSqliteDatabase } from "../../plugins/store-sql/checkpoints/sqlite-executor.js";

const require = createRequire(import.meta.url);
export const Database = require("better-sqlite3") as new (path: string) => BetterSqliteDatabase;
const pg = require("pg") as { Pool: new (options: Record<string, unknown>) => PgPool };

export const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";

function tcpReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export const pgReachable = await tcpReachable(PG_URL);
if (!pgReachable) {
  if (process.env.CI === "true") throw new Error(`PostgreSQL not reachable at KEEL_TEST_PG_URL; CI must start it`);
  console.log(`checkpointer tests: PostgreSQL not reachable at KEEL_TEST_PG_URL (${PG_URL.replace(/:[^:@/]+@/, ":***@")}); PostgreSQL cases skipped`);
}

export interface Backend {
  name: "sqlite" | "postgres";
  /** A saver on a fresh, empty database (SQLite) or schema (PostgreSQL); `sql` runs raw statements there. */
  open(options?: KeelCheckpointSaverOptions): Promise<{ saver: KeelCheckpointSaver; sql: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>; close: () => Promise<void> }>;
}

export const sqliteBackend: Backend = {
  name: "sqlite",
  async open(options) {
    const db = new Database(":memory:");
    const saver = new KeelCheckpointSaver(new SqliteExecutor(db, true), options);
    return {
      saver,
      sql: async (text, params = []) => (/^\s*select/i.test(text) ? (db.prepare(text).all(...params) as Record<string, unknown>[]) : (db.prepare(text).run(...params), [])),
      close: () => saver.close(),
    };
  },
};

/** A pool whose every connection works in `schema` (created here, dropped by `close`). */
export async function pgSchemaPool(): Promise<{ pool: PgPool; schema: string; drop: () => Promise<void> }> {
  const schema = `keel_ckpt_test_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4, options: `-c search_path=${schema}` });
  pool.on("error", () => undefined);
  return {
    pool,
    schema,
    drop: async () => {
      await pool.end().catch(() => undefined);
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export const postgresBackend: Backend = {
  name: "postgres",
  async open(options) {
    const { pool, drop } = await pgSchemaPool();
    const saver = new KeelCheckpointSaver(new PostgresExecutor(pool), options);
    await saver.setup();
    return {
      saver,
      sql: async (text, params = []) => (await pool.query(numberPlaceholders(text), params)).rows,
      close: async () => {
        await saver.close();
        await drop();
      },
    };
  },
};

export const backends: Backend[] = pgReachable ? [sqliteBackend, postgresBackend] : [sqliteBackend];
