/**
 * Crons on SQLite (two stores and two cron stores on one file: two connections, as two
 * worker processes would have) and PostgreSQL (a scratch database, two pools each), through
 * the shared suite (test/runs/cron-suite.ts). PostgreSQL: KEEL_TEST_PG_URL (default
 * postgres://keel:keel@127.0.0.1:5432/keel); skipped with a printed reason when unreachable
 * locally, a failure under CI=true.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { createSqlRunStore, SqlCronStore } from "../../../plugins/store-sql/index.js";
import type { RunStore } from "../../../kernel/runs/types.js";
import type { CronStore } from "../../../kernel/runs/cron-types.js";
import { describeCrons } from "../../runs/cron-suite.js";
import { postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "./scratch-database.js";

const dir = mkdtempSync(join(tmpdir(), "keel-crons-sql-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function clusterOn(url: string, drop: () => Promise<void> = async () => undefined) {
  const runStores: [RunStore, RunStore] = [await createSqlRunStore(url), await createSqlRunStore(url)];
  const cronStores: [CronStore, CronStore] = [await SqlCronStore.open(url), await SqlCronStore.open(url)];
  return {
    runStores,
    cronStores,
    dispose: async () => {
      await Promise.all([...cronStores.map((s) => s.close!()), ...runStores.map((s) => s.close())]);
      await drop();
    },
  };
}

describeCrons("SQLite file", () => clusterOn(`sqlite:${join(dir, `crons-${++files}`, "keel.db")}`));

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping the PostgreSQL cron tests: ${skipReason}`);
  describe.skip(`crons: PostgreSQL (${skipReason})`, () => {
    it("skipped", () => undefined);
  });
} else {
  describeCrons("PostgreSQL", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_crons");
    return clusterOn(url, drop);
  });
}
