import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryItemStore } from "../../../kernel/runs/memory-item-store.js";
import { SqlItemStore } from "../../../plugins/store-sql/index.js";
import { describeStoreApi } from "./store-api.js";

interface Sqlite {
  prepare(sql: string): { get(): { n: number } };
  close(): void;
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => Sqlite;

describeStoreApi("memory", async () => {
  const items = new MemoryItemStore();
  return { items, rowCount: async () => items.size, close: async () => undefined };
});

describeStoreApi("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-store-items-"));
  const path = join(dir, "keel.db");
  const items = await SqlItemStore.open(`sqlite:${path}`);
  const db = new Database(path);
  return {
    items,
    rowCount: async () => db.prepare("select count(*) as n from keel_store_items").get().n,
    close: async () => {
      db.close();
      await items.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
