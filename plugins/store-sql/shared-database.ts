/**
 * One database connection (MikroORM instance and its pool) shared by the stores of one
 * store URL — the run store and its companions (crons, items, assistants on PostgreSQL) —
 * with the schema diff run once for all of them (the entities cover every table). Each
 * store `acquire()`s it when it opens and `release()`s it when it closes; the last release
 * closes the pool. See the plugin's README, "One connection pool".
 */
import { migrateSchema } from "./migrate-schema.js";
import { openOrm, type StoreOrm } from "./open-orm.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import type { StoreTarget } from "./store-url.js";

export class SharedDatabase {
  private refs = 0;
  private migrated: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly orm: StoreOrm,
    readonly target: StoreTarget,
    /** SQLite only: the pool's one connection. */
    readonly sqlite: SqliteDatabase | undefined,
  ) {}

  /** Connects (no store holds it yet: the first `acquire()` does). */
  static async open(target: StoreTarget): Promise<SharedDatabase> {
    const { orm, sqlite } = await openOrm(target);
    return new SharedDatabase(orm, target, sqlite);
  }

  get dialect(): StoreTarget["dialect"] {
    return this.target.dialect;
  }

  /** True once the last holder released it (the pool is closed). */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** The schema created or migrated, once per instance (later calls share the first). */
  migrate(): Promise<void> {
    this.migrated ??= migrateSchema(this.orm, this.target.dialect);
    return this.migrated;
  }

  /** One more store holds the connection. */
  acquire(): this {
    if (this.closing) throw new Error("the shared store database is closed");
    this.refs++;
    return this;
  }

  /** A holder is done; the last one closes the pool. */
  release(): Promise<void> {
    if (this.closing) return this.closing;
    this.refs--;
    if (this.refs > 0) return Promise.resolve();
    this.closing = this.orm.close(true);
    return this.closing;
  }
}
