/** Thread expiries on SQLite and PostgreSQL (the SqlRunStore's `ThreadExpiryStore` methods). */
import type { SqlEntityManager } from "@mikro-orm/better-sqlite";
import type { ThreadExpiry } from "../../kernel/runs/thread-expiry.js";
import { ThreadExpiryEntity } from "./thread-expiry-entity.js";

type Em = () => SqlEntityManager;

export async function setThreadExpirySql(em: Em, expiry: ThreadExpiry): Promise<void> {
  const row = { threadId: expiry.threadId, ttlMinutes: expiry.ttlMinutes, expiresAt: expiry.expiresAt };
  await em().createQueryBuilder(ThreadExpiryEntity).insert(row).onConflict("threadId").merge(["ttlMinutes", "expiresAt"]).execute();
}

export async function getThreadExpirySql(em: Em, threadId: string): Promise<ThreadExpiry | null> {
  const row = await em().findOne(ThreadExpiryEntity, { threadId });
  return row ? { threadId: row.threadId, ttlMinutes: Number(row.ttlMinutes), expiresAt: row.expiresAt } : null;
}

export async function expiredThreadsSql(em: Em, now: string, limit: number): Promise<ThreadExpiry[]> {
  const rows = await em().find(ThreadExpiryEntity, { expiresAt: { $lte: now } }, { orderBy: { expiresAt: "asc", threadId: "asc" }, limit });
  return rows.map((row) => ({ threadId: row.threadId, ttlMinutes: Number(row.ttlMinutes), expiresAt: row.expiresAt }));
}

export async function forgetThreadExpirySql(em: Em, threadId: string): Promise<void> {
  await em().nativeDelete(ThreadExpiryEntity, { threadId });
}
