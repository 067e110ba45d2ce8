/**
 * Thread expiry (kernel/runs/README.md, "Thread TTL and the retention sweep"): a thread
 * with an expiry is purged by the retention sweep once the expiry passed. The store keeps,
 * per thread, its TTL and when it expires; each activity (creation, a run, an update)
 * pushes the expiry to `now + ttl`. A thread without an entry never expires.
 */

/** One thread's TTL and the instant (ISO-8601 UTC) it expires. */
export interface ThreadExpiry {
  threadId: string;
  ttlMinutes: number;
  expiresAt: string;
}

/**
 * The optional part of a RunStore that keeps thread expiries (the memory store and
 * store-sql have it). Entries are independent of the thread row: the sweep forgets an
 * entry once its thread is purged, or when the thread is already gone.
 */
export interface ThreadExpiryStore {
  /** Create or replace the thread's entry. */
  setThreadExpiry(expiry: ThreadExpiry): Promise<void>;
  getThreadExpiry(threadId: string): Promise<ThreadExpiry | null>;
  /** Entries whose `expiresAt` is at or before `now`, soonest first, at most `limit`. */
  expiredThreads(now: string, limit: number): Promise<ThreadExpiry[]>;
  forgetThreadExpiry(threadId: string): Promise<void>;
}

/** The expiry of a thread active at `now` with this TTL. */
export function expiryAt(now: string, ttlMinutes: number): string {
  return new Date(Date.parse(now) + ttlMinutes * 60_000).toISOString();
}

/** In-process entries (the memory store's). */
export class MemoryThreadExpiries implements ThreadExpiryStore {
  private readonly entries = new Map<string, ThreadExpiry>();

  async setThreadExpiry(expiry: ThreadExpiry): Promise<void> {
    this.entries.set(expiry.threadId, { ...expiry });
  }

  async getThreadExpiry(threadId: string): Promise<ThreadExpiry | null> {
    const entry = this.entries.get(threadId);
    return entry ? { ...entry } : null;
  }

  async expiredThreads(now: string, limit: number): Promise<ThreadExpiry[]> {
    return [...this.entries.values()]
      .filter((entry) => entry.expiresAt <= now)
      .sort((a, b) => (a.expiresAt < b.expiresAt ? -1 : a.expiresAt > b.expiresAt ? 1 : a.threadId < b.threadId ? -1 : 1))
      .slice(0, limit)
      .map((entry) => ({ ...entry }));
  }

  async forgetThreadExpiry(threadId: string): Promise<void> {
    this.entries.delete(threadId);
  }
}
