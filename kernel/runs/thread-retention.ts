/**
 * Thread TTL and the retention sweep (kernel/runs/README.md, "Thread TTL and the retention
 * sweep"). A thread gets an expiry when it is created (its own `ttl`, else the server's
 * default); every activity — a run admitted on it, an update — pushes the expiry to
 * `now + ttl`. The sweep, on every worker, purges threads whose expiry passed through the
 * run manager's `deleteThread` (thread-purge.ts): runs, journals, reports, stream events,
 * checkpoints (the thread's and its subagents') and workspace go with the thread. A thread
 * with a pending or running run is not purged: its expiry is pushed as for an activity.
 */
import { isKeelError, KeelError } from "../errors.js";
import { expiryAt } from "./thread-expiry.js";
import type { ThreadDeletion } from "./thread-purge.js";
import type { RunRecord, RunStore } from "./types.js";

/** A thread idle this long (minutes) expires, unless its creation asked otherwise: 30 days. */
export const DEFAULT_THREAD_TTL_MINUTES = 43_200;
/** How often each worker sweeps (minutes). */
export const DEFAULT_RETENTION_SWEEP_MINUTES = 60;
/** Expired threads handled per sweep; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

export interface RetentionOptions {
  /** The TTL (minutes) of a thread created without one; null: such threads never expire. */
  defaultTtlMinutes: number | null;
  /** Minutes between sweeps (> 0). */
  sweepMinutes: number;
}

export interface RetentionDeps {
  store: RunStore;
  /** The run manager's `deleteThread` (no user: the server purges). */
  deleteThread(threadId: string, options: { waitMs?: number }): Promise<ThreadDeletion>;
  clock?: () => number;
  log?: (message: string, error?: unknown) => void;
}

export interface SweepResult {
  /** Threads purged by this sweep. */
  purged: string[];
  /** Threads whose expiry passed but that had an active run: their expiry was pushed. */
  deferred: string[];
}

/** Check `options` (`KEEL_ERR_CONFIG_INVALID`): TTL a positive number of minutes or null, sweep interval > 0. */
export function readRetentionOptions(options: Partial<RetentionOptions> = {}): RetentionOptions {
  const defaultTtlMinutes = options.defaultTtlMinutes === undefined ? DEFAULT_THREAD_TTL_MINUTES : options.defaultTtlMinutes;
  const sweepMinutes = options.sweepMinutes ?? DEFAULT_RETENTION_SWEEP_MINUTES;
  if (defaultTtlMinutes !== null && !(Number.isFinite(defaultTtlMinutes) && defaultTtlMinutes > 0)) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `the default thread TTL must be a number of minutes > 0 (or null: never), got ${defaultTtlMinutes}`);
  }
  if (!(Number.isFinite(sweepMinutes) && sweepMinutes > 0)) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `the retention sweep interval must be a number of minutes > 0, got ${sweepMinutes}`);
  return { defaultTtlMinutes, sweepMinutes };
}

export class ThreadRetention {
  readonly options: RetentionOptions;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepResult> | undefined;
  private readonly clock: () => number;

  constructor(
    private readonly deps: RetentionDeps,
    options: Partial<RetentionOptions> = {},
  ) {
    this.options = readRetentionOptions(options);
    this.clock = deps.clock ?? Date.now;
  }

  /** Whether the store keeps expiries (a third-party store may not: then nothing expires). */
  get supported(): boolean {
    const { store } = this.deps;
    return typeof store.setThreadExpiry === "function" && typeof store.expiredThreads === "function" && typeof store.forgetThreadExpiry === "function" && typeof store.getThreadExpiry === "function";
  }

  /**
   * A thread was created: give it `ttlMinutes` (its request's), else the default. `null`
   * (or no default) removes any entry, so the thread never expires.
   */
  async trackThread(threadId: string, ttlMinutes?: number | null): Promise<void> {
    if (!this.supported) return;
    const ttl = ttlMinutes === undefined ? this.options.defaultTtlMinutes : ttlMinutes;
    if (ttl === null) return this.deps.store.forgetThreadExpiry!(threadId);
    await this.deps.store.setThreadExpiry!({ threadId, ttlMinutes: ttl, expiresAt: expiryAt(this.nowIso(), ttl) });
  }

  /** Activity on a thread (a run, an update): its expiry moves to now + its TTL. */
  async touch(threadId: string): Promise<void> {
    if (!this.supported) return;
    const entry = await this.deps.store.getThreadExpiry!(threadId);
    if (entry) await this.deps.store.setThreadExpiry!({ ...entry, expiresAt: expiryAt(this.nowIso(), entry.ttlMinutes) });
  }

  /** One sweep now (concurrent calls share it). */
  sweepOnce(): Promise<SweepResult> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Sweep every `sweepMinutes` (unref'd timer; idempotent). */
  start(): void {
    if (this.timer || !this.supported) return;
    this.timer = setInterval(() => {
      this.sweepOnce().catch((error) => this.deps.log?.("the retention sweep failed; the next one retries", error));
    }, this.options.sweepMinutes * 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sweep(): Promise<SweepResult> {
    const result: SweepResult = { purged: [], deferred: [] };
    if (!this.supported) return result;
    const { store } = this.deps;
    for (const entry of await store.expiredThreads!(this.nowIso(), SWEEP_BATCH)) {
      const thread = await store.getThread(entry.threadId);
      if (!thread) {
        // Deleted by its owner, or being purged: nothing left to expire.
        await store.forgetThreadExpiry!(entry.threadId);
        continue;
      }
      const active: RunRecord[] = await store.activeRuns(entry.threadId);
      if (active.length > 0) {
        await store.setThreadExpiry!({ ...entry, expiresAt: expiryAt(this.nowIso(), entry.ttlMinutes) });
        result.deferred.push(entry.threadId);
        continue;
      }
      try {
        const deletion = await this.deps.deleteThread(entry.threadId, { waitMs: 0 });
        await deletion.done;
      } catch (error) {
        // Another worker's sweep (or the owner) deleted it first: it is gone either way.
        if (!(isKeelError(error) && error.code === "KEEL_ERR_THREAD_NOT_FOUND")) throw error;
      }
      await store.forgetThreadExpiry!(entry.threadId);
      result.purged.push(entry.threadId);
    }
    return result;
  }

  private nowIso(): string {
    return new Date(this.clock()).toISOString();
  }
}
