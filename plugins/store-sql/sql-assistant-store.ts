/**
 * The AssistantStore (kernel/assistants) on SQLite or PostgreSQL through MikroORM, in the
 * run store's database (the same `--db`): on PostgreSQL it may share the run store's pool
 * (`open(runStore.database())`), on SQLite it keeps its own connection; tables created by
 * the same schema diff. A new version is written in one transaction that holds the
 * assistant's row: the version row, then the assistant row.
 */
import { LockMode, UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import { applyPatch, fromVersion, versionOf } from "../../kernel/assistants/memory-assistant-store.js";
import type { AssistantFilter, AssistantPatch, AssistantRecord, AssistantSearch, AssistantStore, AssistantVersionRecord } from "../../kernel/assistants/types.js";
import { KeelError } from "../../kernel/errors.js";
import { metadataEquals, type Dialect } from "./dialect-sql.js";
import { AssistantEntity, AssistantVersionEntity, type AssistantRow, type AssistantVersionRow } from "./entities-assistants.js";
import { migrateSchema } from "./migrate-schema.js";
import { initOrClose, openOrm, type StoreOrm } from "./open-orm.js";
import { SharedDatabase } from "./shared-database.js";
import { retryMethodsWhileBusy } from "./sqlite-busy.js";
import { reportUnreachable } from "./store-unavailable.js";
import { parseStoreUrl, DEFAULT_STORE_URL } from "./store-url.js";

/** Connections of the assistant store's own PostgreSQL pool (when it does not share the run store's). */
const ASSISTANT_POOL_MAX = 2;

const SORT_COLUMNS = { assistant_id: "assistantId", graph_id: "graphId", created_at: "createdAt", updated_at: "updatedAt", name: "name" } as const;

const METHODS = ["createAssistant", "getAssistant", "updateAssistant", "setLatestVersion", "deleteAssistant", "searchAssistants", "countAssistants", "listVersions"] as const satisfies readonly (keyof SqlAssistantStore)[];

export class SqlAssistantStore implements AssistantStore {
  private migrated: Promise<void> | undefined;
  private readonly orm: StoreOrm;
  private readonly dialect: Dialect;
  private released: Promise<void> | undefined;

  private constructor(
    /** The run store's shared connection (PostgreSQL), or undefined: this store's own ORM. */
    private readonly shared: SharedDatabase | undefined,
    own: { orm: StoreOrm; dialect: Dialect } | undefined,
  ) {
    shared?.acquire();
    this.orm = shared ? shared.orm : own!.orm;
    this.dialect = shared ? shared.dialect : own!.dialect;
    if (this.dialect === "sqlite") retryMethodsWhileBusy(this as SqlAssistantStore, METHODS);
    else reportUnreachable(this as SqlAssistantStore, METHODS);
  }

  /**
   * Connect to `url` (a store-sql URL) and create or migrate the schema. Given the run
   * store's `SharedDatabase`: on PostgreSQL its pool and its one schema diff are used; on
   * SQLite the store keeps a connection of its own to the same file, because its version
   * writes are asynchronous ORM transactions, which must not interleave with the run store's
   * synchronous ones on one SQLite connection (the plugin's README, "One connection pool").
   *
   * @example
   * const assistants = await SqlAssistantStore.open("sqlite:./.keel/keel.db");
   */
  static async open(url: string | SharedDatabase = DEFAULT_STORE_URL): Promise<SqlAssistantStore> {
    if (url instanceof SharedDatabase && url.dialect === "postgres") return initOrClose(new SqlAssistantStore(url, undefined));
    const target = url instanceof SharedDatabase ? url.target : parseStoreUrl(url);
    // Assistants are read once per run admission and written rarely: two PostgreSQL connections are plenty.
    const { orm } = await openOrm(target, { poolMax: ASSISTANT_POOL_MAX });
    return initOrClose(new SqlAssistantStore(undefined, { orm, dialect: target.dialect }));
  }

  init(): Promise<void> {
    if (this.shared) return this.shared.migrate();
    this.migrated ??= migrateSchema(this.orm, this.dialect);
    return this.migrated;
  }

  /** Releases the shared connection, or closes its own. Idempotent. */
  close(): Promise<void> {
    this.released ??= this.shared ? this.shared.release() : this.orm.close(true);
    return this.released;
  }

  async createAssistant(record: AssistantRecord): Promise<AssistantRecord> {
    const stored = { ...record, version: 1 };
    try {
      await this.em().transactional(async (em) => {
        await em.insert(AssistantEntity, toRow(stored));
        await em.insert(AssistantVersionEntity, toVersionRow(versionOf(stored)));
      });
    } catch (error) {
      if (this.isUniqueViolation(error)) throw new KeelError("KEEL_ERR_STORE_CONFLICT", `assistant \`${record.assistantId}\` already exists`, { cause: error });
      throw error;
    }
    return fromRow(toRow(stored));
  }

  async getAssistant(assistantId: string): Promise<AssistantRecord | null> {
    const row = await this.em().findOne(AssistantEntity, { assistantId });
    return row ? fromRow(row) : null;
  }

  async updateAssistant(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | null> {
    return this.rewrite(assistantId, async (em, current) => {
      const [highest] = await em.find(AssistantVersionEntity, { assistantId }, { orderBy: { version: "desc" }, limit: 1 });
      const next = applyPatch(current, patch, (highest?.version ?? 0) + 1, now);
      await em.insert(AssistantVersionEntity, toVersionRow(versionOf(next)));
      return next;
    });
  }

  async setLatestVersion(assistantId: string, version: number, now: string): Promise<AssistantRecord | null> {
    return this.rewrite(assistantId, async (em, current) => {
      const row = await em.findOne(AssistantVersionEntity, { assistantId, version });
      return row ? fromVersion(current, fromVersionRow(row), now) : null;
    });
  }

  /**
   * Read the assistant, let `change` compute (and write versions of) its next state, write
   * that state — in one transaction holding the assistant's row (PostgreSQL: `for update`;
   * SQLite: the writer lock), so concurrent updates each get the next version number.
   */
  private async rewrite(assistantId: string, change: (em: SqlEntityManager, current: AssistantRecord) => Promise<AssistantRecord | null>): Promise<AssistantRecord | null> {
    return this.em().transactional(async (em) => {
      if (this.dialect === "sqlite") await em.nativeUpdate(AssistantEntity, { assistantId }, { assistantId });
      const row = await em.findOne(AssistantEntity, { assistantId }, this.dialect === "postgres" ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
      if (!row) return null;
      const next = await change(em, fromRow(row));
      if (!next) return null;
      const { assistantId: _id, owner: _owner, createdAt: _created, ...data } = toRow(next);
      await em.nativeUpdate(AssistantEntity, { assistantId }, data);
      return next;
    });
  }

  async deleteAssistant(assistantId: string): Promise<boolean> {
    return this.em().transactional(async (em) => {
      await em.nativeDelete(AssistantVersionEntity, { assistantId });
      return (await em.nativeDelete(AssistantEntity, { assistantId })) > 0;
    });
  }

  async searchAssistants(search: AssistantSearch): Promise<AssistantRecord[]> {
    const order = search.sortOrder;
    const qb = this.filtered(search).select("*");
    qb.orderBy([{ [SORT_COLUMNS[search.sortBy]]: order }, { assistantId: order }]).limit(search.limit).offset(search.offset);
    return ((await qb.getResultList()) as AssistantRow[]).map(fromRow);
  }

  async countAssistants(filter: AssistantFilter): Promise<number> {
    return this.filtered(filter).getCount();
  }

  async listVersions(assistantId: string, options: { metadata?: Record<string, unknown>; limit: number; offset: number }): Promise<AssistantVersionRecord[]> {
    const qb = this.em().createQueryBuilder(AssistantVersionEntity, "a").select("*").where({ assistantId });
    this.whereMetadata(qb, options.metadata);
    qb.orderBy({ version: "desc" }).limit(options.limit).offset(options.offset);
    return ((await qb.getResultList()) as AssistantVersionRow[]).map(fromVersionRow);
  }

  private filtered(filter: AssistantFilter) {
    const qb = this.em().createQueryBuilder(AssistantEntity, "a").where({ owner: filter.owner });
    if (filter.graphId !== undefined) qb.andWhere({ graphId: filter.graphId });
    if (filter.name !== undefined) qb.andWhere("lower(a.name) like ? escape '\\'", [`%${escapeLike(filter.name.toLowerCase())}%`]);
    this.whereMetadata(qb, filter.metadata);
    return qb;
  }

  private whereMetadata(qb: { andWhere(sql: string, params: unknown[]): unknown }, metadata: Record<string, unknown> | undefined): void {
    for (const [key, value] of Object.entries(metadata ?? {})) {
      if (value === undefined) continue;
      const condition = metadataEquals(this.dialect, "a", key, value);
      qb.andWhere(condition.sql, condition.params);
    }
  }

  private em(): SqlEntityManager {
    return this.orm.em.fork();
  }

  private isUniqueViolation(error: unknown): boolean {
    if (error instanceof UniqueConstraintViolationException) return true;
    return error instanceof Error && this.orm.em.getDriver().convertException(error) instanceof UniqueConstraintViolationException;
  }
}

/** `%`, `_` and the escape character itself match literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function toRow(record: AssistantRecord): AssistantRow {
  return {
    assistantId: record.assistantId,
    owner: record.owner,
    graphId: record.graphId,
    version: record.version,
    name: record.name,
    description: record.description,
    config: JSON.stringify(record.config),
    context: JSON.stringify(record.context),
    metadata: JSON.stringify(record.metadata),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function fromRow(row: AssistantRow): AssistantRecord {
  return {
    assistantId: row.assistantId,
    owner: row.owner,
    graphId: row.graphId,
    version: Number(row.version),
    name: row.name,
    description: row.description ?? null,
    config: JSON.parse(row.config) as Record<string, unknown>,
    context: JSON.parse(row.context) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toVersionRow(version: AssistantVersionRecord): AssistantVersionRow {
  return {
    assistantId: version.assistantId,
    version: version.version,
    graphId: version.graphId,
    name: version.name,
    description: version.description,
    config: JSON.stringify(version.config),
    context: JSON.stringify(version.context),
    metadata: JSON.stringify(version.metadata),
    createdAt: version.createdAt,
  };
}

function fromVersionRow(row: AssistantVersionRow): AssistantVersionRecord {
  return {
    assistantId: row.assistantId,
    version: Number(row.version),
    graphId: row.graphId,
    name: row.name,
    description: row.description ?? null,
    config: JSON.parse(row.config) as Record<string, unknown>,
    context: JSON.parse(row.context) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.createdAt,
  };
}
