/**
 * The store API on PostgreSQL (KEEL_TEST_PG_URL): the same SDK suite as the memory and SQLite
 * backends, on a scratch database. Skipped with a printed reason when PostgreSQL cannot be
 * used locally; with CI=true that is a failure.
 */
import { createRequire } from "node:module";
import { describe, it } from "vitest";
import { SqlItemStore } from "../../../plugins/store-sql/index.js";
import { PG_URL, postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";
import { describeStoreApi } from "./store-api.js";

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: { n: string }[] }>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping the store API on PostgreSQL: ${skipReason}`);
  describe.skip(`store API on PostgreSQL (${skipReason})`, () => {
    it("skipped", () => undefined);
  });
} else {
  describeStoreApi("PostgreSQL", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_store_items");
    const items = await SqlItemStore.open(url);
    const pg = new Client({ connectionString: url });
    await pg.connect();
    return {
      items,
      rowCount: async () => Number((await pg.query("select count(*) as n from keel_store_items")).rows[0]!.n),
      close: async () => {
        await pg.end();
        await items.close();
        await drop();
      },
    };
  });
}
