/**
 * The SQL backends the fencing tests run on: SQLite always (a fresh file per open);
 * PostgreSQL when KEEL_TEST_PG_URL is reachable (locally skipped with a printed reason,
 * a failure under CI=true), in the test file's own database, dropped and created fresh
 * per open. Each test file passes its own database name, so files running in parallel
 * never share one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunStore } from "../../kernel/runs/types.js";
import { closeCheckpointer, createCheckpointer, createSqlRunStore, type KeelCheckpointer } from "../../plugins/store-sql/index.js";
import { PG_URL, postgresUnavailable } from "../e2e/services.js";
import { dropDatabase } from "../plugins/store-sql/scratch-database.js";

export interface FenceBackend {
  name: string;
  open(): Promise<{ store: RunStore; checkpointer: KeelCheckpointer; close: () => Promise<void> }>;
}

async function openUrl(url: string, cleanup: () => void = () => undefined) {
  const store = await createSqlRunStore(url);
  const checkpointer = await createCheckpointer(url);
  return {
    store,
    checkpointer,
    close: async () => {
      await closeCheckpointer(checkpointer);
      await store.close();
      cleanup();
    },
  };
}

const sqlite: FenceBackend = {
  name: "SQLite",
  async open() {
    const dir = mkdtempSync(path.join(tmpdir(), "keel-fence-"));
    return openUrl(`sqlite:${path.join(dir, "keel.db")}`, () => rmSync(dir, { recursive: true, force: true }));
  },
};

function postgres(database: string): FenceBackend {
  return {
    name: "PostgreSQL",
    async open() {
      const { Client } = createRequire(import.meta.url)("pg") as { Client: new (o: { connectionString: string }) => { connect(): Promise<void>; query(q: string): Promise<unknown>; end(): Promise<void> } };
      const admin = new Client({ connectionString: PG_URL });
      await admin.connect();
      try {
        await dropDatabase(admin, database);
        await admin.query(`create database ${database}`);
      } finally {
        await admin.end();
      }
      const url = new URL(PG_URL);
      url.pathname = `/${database}`;
      return openUrl(url.toString());
    },
  };
}

/** SQLite, plus PostgreSQL in `database` when it can be used. */
export async function fenceBackends(database: string): Promise<FenceBackend[]> {
  const skip = await postgresUnavailable(PG_URL);
  if (skip !== null) {
    console.warn(`fencing tests: PostgreSQL cases skipped: ${skip}`);
    return [sqlite];
  }
  return [sqlite, postgres(database)];
}
