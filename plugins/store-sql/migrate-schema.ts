/**
 * Schema creation and migration on start, with MikroORM's SchemaGenerator diffing the
 * live database against the entities.
 *
 * Why not the migrations package: it is not installed, and versioned migration files
 * would duplicate what the entities already state. The diff is made robust instead:
 * - `safe: true`: columns and tables are only ever added, never dropped, so an older
 *   worker starting against a newer schema cannot destroy data, and LangGraph's
 *   checkpoint tables sharing a PostgreSQL database are left alone.
 * - PostgreSQL: the diff is computed and applied inside one transaction holding an
 *   advisory lock, so workers starting together migrate one after another (the second
 *   finds nothing to do) and a failed migration leaves nothing half-applied (DDL is
 *   transactional there).
 * - SQLite: statements run one by one; a concurrent starter on the same file may have
 *   created a table between the diff and the DDL, so the diff is recomputed and retried.
 */
import type { StoreOrm } from "./open-orm.js";
import type { StoreTarget } from "./store-url.js";

/** Arbitrary constant naming Keel's schema lock among PostgreSQL advisory locks. */
const SCHEMA_LOCK_KEY = 0x6b65656c; // "keel"
const SQLITE_ATTEMPTS = 3;

export async function migrateSchema(orm: StoreOrm, dialect: StoreTarget["dialect"]): Promise<void> {
  const generator = orm.getSchemaGenerator();
  if (dialect === "postgres") {
    await orm.em.fork().transactional(async (em) => {
      await em.execute(`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`);
      const sql = await generator.getUpdateSchemaSQL({ safe: true, wrap: false });
      if (sql.trim() !== "") await em.execute(sql);
    });
    return;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await generator.updateSchema({ safe: true, wrap: false });
      return;
    } catch (error) {
      if (attempt >= SQLITE_ATTEMPTS) throw error;
    }
  }
}
