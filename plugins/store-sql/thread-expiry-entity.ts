/**
 * The thread-expiry table (kernel/runs/thread-expiry.ts): one row per thread that has a
 * TTL. Kept apart from `keel_threads` so the retention sweep's lookup (`expires_at <= now`)
 * has its own index and the thread row's writes stay as they are.
 */
import { EntitySchema } from "@mikro-orm/core";

export const THREAD_EXPIRY_TABLE = "keel_thread_expiries";

export interface ThreadExpiryRow {
  threadId: string;
  ttlMinutes: number;
  expiresAt: string;
}

export const ThreadExpiryEntity = new EntitySchema<ThreadExpiryRow>({
  name: "KeelThreadExpiry",
  tableName: THREAD_EXPIRY_TABLE,
  properties: {
    threadId: { type: "text", primary: true },
    ttlMinutes: { type: "double" },
    expiresAt: { type: "text", index: "keel_thread_expiries_expires_at_index" },
  },
});
