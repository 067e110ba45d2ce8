/**
 * The assistant store on memory, SQLite and PostgreSQL (KEEL_TEST_PG_URL, a scratch database;
 * skipped with a printed reason when unreachable locally, a failure under CI=true).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { MemoryAssistantStore } from "../../kernel/assistants/memory-assistant-store.js";
import { SqlAssistantStore } from "../../plugins/store-sql/sql-assistant-store.js";
import { postgresUnavailable, PG_URL } from "../e2e/services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";
import { describeAssistantStoreConformance } from "./assistant-store-conformance.js";

describeAssistantStoreConformance("memory", async () => new MemoryAssistantStore());

const dir = mkdtempSync(join(tmpdir(), "keel-assistant-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sqliteUrl = `sqlite:${join(dir, "keel.db")}`;
describeAssistantStoreConformance("SQLite", () => SqlAssistantStore.open(sqliteUrl), { reopen: () => SqlAssistantStore.open(sqliteUrl) });

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping the assistant store on PostgreSQL: ${skipReason}`);
  describe.skip(`AssistantStore on PostgreSQL (${skipReason})`, () => it("skipped", () => undefined));
} else {
  const { url, drop } = await scratchDatabase(PG_URL, "keel_assistants");
  afterAll(() => drop());
  describeAssistantStoreConformance("PostgreSQL", () => SqlAssistantStore.open(url), { reopen: () => SqlAssistantStore.open(url) });
}
