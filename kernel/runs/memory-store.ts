/**
 * The in-memory RunStore, for tests and embedded use. It keeps the SQL store's
 * semantics: every read returns a copy (a caller editing a record never edits the
 * store), admission and claims happen without an `await` in between (JavaScript runs
 * them to the end, like the SQL transaction), and terminal writes compare owner+epoch.
 */
import { isDeepStrictEqual } from "node:util";
import { RUN_STATUS_OF_OUTCOME } from "../../contracts/run/v1.js";
import { KeelError } from "../errors.js";
import type { StatusV2Payload } from "../loop/status.js";
import { replacesActive, runLimitError, startedAtAdmission, supersedesPending, threadDeletedError, uncheckedRollback } from "./admission.js";
import { assertJournalFence } from "./journal-fence.js";
import { MemoryThreadExpiries, type ThreadExpiry } from "./thread-expiry.js";
import type { AdmissionLimits, AdmissionReplace, AdmissionResult, AdmissionStart, JournalEntry, JournalFence, RecentRunsFilter, RunRecord, RunRecordStatus, RunStore, ThreadFilter, ThreadRecord, ThreadSearch, ThreadSortBy, ThreadStatus } from "./types.js";

/** A stored run (its admission order is `record.sequence`); `scheduled` when the admission gave it a `dueAt`. */
interface StoredRun {
  record: RunRecord;
  scheduled: boolean;
}

const isoAt = (ms: number): string => new Date(ms).toISOString();

/** Values cross the store boundary as JSON, exactly as they do in the SQL store. */
function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Admission order (the `sequence` the store assigned). */
function oldestFirst(a: StoredRun, b: StoredRun): number {
  return a.record.sequence! - b.record.sequence!;
}

/** The claim queue's order: due time, then admission order. */
function queueOrder(a: RunRecord, b: RunRecord): number {
  if (a.dueAt !== b.dueAt) return a.dueAt! < b.dueAt! ? -1 : 1;
  return a.sequence! - b.sequence!;
}

/** A pending run counts toward its user's limit when it was due at once, or once its due time came. */
const countsWhilePending = ({ record, scheduled }: StoredRun, now: string): boolean => !scheduled || record.dueAt! <= record.createdAt || record.dueAt! <= now;

/** A run due at once is due whatever the clocks say (its `createdAt` may come from a clock ahead of this one). */
const isDue = ({ record, scheduled }: StoredRun, now: number): boolean => record.status === "pending" && (!scheduled || record.dueAt! <= isoAt(now));

function isActive(status: RunRecordStatus): boolean {
  return status === "pending" || status === "running";
}

export class MemoryRunStore implements RunStore {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly expiries = new MemoryThreadExpiries();

  setThreadExpiry(expiry: ThreadExpiry): Promise<void> {
    return this.expiries.setThreadExpiry(expiry);
  }

  getThreadExpiry(threadId: string): Promise<ThreadExpiry | null> {
    return this.expiries.getThreadExpiry(threadId);
  }

  expiredThreads(now: string, limit: number): Promise<ThreadExpiry[]> {
    return this.expiries.expiredThreads(now, limit);
  }

  forgetThreadExpiry(threadId: string): Promise<void> {
    return this.expiries.forgetThreadExpiry(threadId);
  }

  private readonly runs = new Map<string, StoredRun>();
  private readonly journals = new Map<string, JournalEntry[]>();
  private readonly reports = new Map<string, unknown>();
  /** Threads marked deleted (the tombstone), in marking order; they stay in `threads` until deleted. */
  private readonly deleted = new Set<string>();
  private admissions = 0;

  async init(): Promise<void> {}

  async close(): Promise<void> {}

  async createThread(thread: ThreadRecord): Promise<ThreadRecord> {
    if (this.threads.has(thread.threadId)) {
      throw new KeelError("KEEL_ERR_STORE_CONFLICT", `thread \`${thread.threadId}\` already exists`);
    }
    this.threads.set(thread.threadId, jsonCopy(thread));
    return jsonCopy(thread);
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const thread = this.threads.get(threadId);
    return thread && !this.deleted.has(threadId) ? jsonCopy(thread) : null;
  }

  async updateThread(threadId: string, patch: Partial<Pick<ThreadRecord, "status" | "metadata">>, now: string): Promise<void> {
    const thread = this.threads.get(threadId);
    if (!thread || this.deleted.has(threadId)) return;
    if (patch.status !== undefined) thread.status = patch.status;
    if (patch.metadata !== undefined) thread.metadata = jsonCopy(patch.metadata);
    thread.updatedAt = now;
  }

  async searchThreads(filter: ThreadSearch): Promise<ThreadRecord[]> {
    return this.matchingThreads(filter)
      .sort(threadOrder(filter.sortBy ?? "created_at", filter.sortOrder ?? "desc"))
      .slice(filter.offset, filter.offset + filter.limit)
      .map((t) => jsonCopy(t));
  }

  async countThreads(filter: ThreadFilter): Promise<number> {
    return this.matchingThreads(filter).length;
  }

  private matchingThreads(filter: ThreadFilter): ThreadRecord[] {
    const wanted = Object.entries(jsonCopy(filter.metadata ?? {}));
    const ids = filter.ids && filter.ids.length > 0 ? new Set(filter.ids) : undefined;
    return [...this.threads.values()]
      .filter((t) => t.owner === filter.owner && !this.deleted.has(t.threadId))
      .filter((t) => ids === undefined || ids.has(t.threadId))
      .filter((t) => filter.status === undefined || t.status === filter.status)
      .filter((t) => wanted.every(([key, value]) => Object.hasOwn(t.metadata, key) && isDeepStrictEqual(t.metadata[key], value)));
  }

  async deleteThread(threadId: string): Promise<boolean> {
    for (const [runId, stored] of this.runs) {
      if (stored.record.threadId !== threadId) continue;
      this.runs.delete(runId);
      this.journals.delete(runId);
      this.reports.delete(runId);
    }
    this.deleted.delete(threadId);
    return this.threads.delete(threadId);
  }

  async markThreadDeleted(threadId: string, now: string): Promise<boolean> {
    const thread = this.threads.get(threadId);
    if (!thread || this.deleted.has(threadId)) return false;
    this.deleted.add(threadId);
    thread.updatedAt = now;
    return true;
  }

  async deletedThreads(limit: number): Promise<string[]> {
    return [...this.deleted].slice(0, limit);
  }

  async endedRuns(after: string, until: string, limit: number): Promise<RunRecord[]> {
    return [...this.runs.values()]
      .filter(({ record }) => !isActive(record.status) && record.updatedAt > after && record.updatedAt <= until)
      .sort((a, b) => (a.record.updatedAt !== b.record.updatedAt ? (a.record.updatedAt < b.record.updatedAt ? -1 : 1) : a.record.sequence! - b.record.sequence!))
      .slice(0, limit)
      .map((s) => jsonCopy(s.record));
  }

  async admitRun(run: RunRecord, limits: AdmissionLimits = {}, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult> {
    if (!this.threads.has(run.threadId)) {
      throw new KeelError("KEEL_ERR_STORE_THREAD_NOT_FOUND", `thread \`${run.threadId}\` does not exist`);
    }
    if (this.deleted.has(run.threadId)) throw threadDeletedError(run.threadId);
    if (this.runs.has(run.runId)) {
      throw new KeelError("KEEL_ERR_STORE_CONFLICT", `run \`${run.runId}\` already exists`);
    }
    let active = this.storedActive(run.threadId).map((s) => s.record);
    if (run.multitaskStrategy === "reject" && active.length > 0) {
      const blocking = active.find((r) => r.status === "running") ?? active[0]!;
      return { ok: false, active: jsonCopy(blocking) };
    }
    const unchecked = uncheckedRollback(run, active, replace);
    if (unchecked) return { ok: false, active: jsonCopy(unchecked) };
    const dueAt = run.dueAt ?? run.createdAt;
    if (limits.maxActivePerUser !== undefined && dueAt <= run.createdAt) {
      const counted = [...this.runs.values()].filter(
        (stored) =>
          stored.record.user === run.user &&
          (stored.record.status === "running" || (stored.record.status === "pending" && countsWhilePending(stored, run.createdAt))) &&
          !(replacesActive(run) && stored.record.threadId === run.threadId),
      ).length;
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    // Checked before this point: nothing is written unless the run is admitted.
    let superseded: RunRecord[] | undefined;
    if (supersedesPending(run, replace)) {
      superseded = active.filter((r) => r.status === "pending");
      for (const pending of superseded) finish(pending, "interrupted", replace.outcome, replace.now);
      active = active.filter((r) => r.status === "running");
    }
    const { owner: _owner, leaseExpiresAt: _lease, outcome: _outcome, sequence: _sequence, ...rest } = jsonCopy(run);
    const record: RunRecord = { ...rest, status: "pending", dueAt, sequence: ++this.admissions, ...startedAtAdmission(run, active, start) };
    this.runs.set(run.runId, { record, scheduled: run.dueAt !== undefined });
    return { ok: true, run: jsonCopy(record), active: jsonCopy(active), ...(superseded ? { superseded: jsonCopy(superseded) } : {}) };
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const stored = this.runs.get(runId);
    return stored ? jsonCopy(stored.record) : null;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunRecordStatus }): Promise<RunRecord[]> {
    return [...this.runs.values()]
      .filter((s) => s.record.threadId === threadId && (options.status === undefined || s.record.status === options.status))
      .sort((a, b) => oldestFirst(b, a))
      .slice(options.offset, options.offset + options.limit)
      .map((s) => jsonCopy(s.record));
  }

  async recentRuns(filter: RecentRunsFilter): Promise<RunRecord[]> {
    return [...this.runs.values()]
      .filter(({ record: r }) => r.user === filter.user && (!filter.statuses || filter.statuses.includes(r.status)) && (filter.assistantId === undefined || r.assistantId === filter.assistantId) && (filter.threadId === undefined || r.threadId === filter.threadId))
      .sort((a, b) => oldestFirst(b, a))
      .slice(0, filter.limit)
      .map((s) => jsonCopy(s.record));
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return this.storedActive(threadId).map((s) => jsonCopy(s.record));
  }

  async claimNext(threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    const next = this.threadHead(threadId, now);
    return next ? this.claim(next, owner, ttlMs, now) : null;
  }

  async claimDue(owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    const heads = new Map<string, RunRecord>();
    const busy = new Set<string>();
    for (const stored of this.runs.values()) {
      const { record } = stored;
      if (record.status === "running") busy.add(record.threadId);
      if (!isDue(stored, now)) continue;
      const head = heads.get(record.threadId);
      if (!head || record.sequence! < head.sequence!) heads.set(record.threadId, record);
    }
    const next = [...heads.values()].filter((r) => !busy.has(r.threadId)).sort(queueOrder)[0];
    return next ? this.claim(next, owner, ttlMs, now) : null;
  }

  /** The thread's next run to claim: none while one is running, else its due pending run admitted first. */
  private threadHead(threadId: string, now: number): RunRecord | undefined {
    const active = this.storedActive(threadId);
    if (active.some((s) => s.record.status === "running")) return undefined;
    return active.find((s) => isDue(s, now))?.record;
  }

  private claim(next: RunRecord, owner: string, ttlMs: number, now: number): RunRecord {
    Object.assign(next, {
      status: "running",
      owner,
      epoch: next.epoch + 1,
      leaseExpiresAt: isoAt(now + ttlMs),
      updatedAt: isoAt(now),
    } satisfies Partial<RunRecord>);
    return jsonCopy(next);
  }

  async heartbeat(runId: string, owner: string, epoch: number, ttlMs: number, now: number): Promise<boolean> {
    const run = this.heldRun(runId, owner, epoch);
    if (!run) return false;
    run.leaseExpiresAt = isoAt(now + ttlMs);
    run.updatedAt = isoAt(now);
    return true;
  }

  async completeRun(runId: string, owner: string, epoch: number, update: { status: RunRecordStatus; outcome: StatusV2Payload }, now: string): Promise<boolean> {
    const run = this.heldRun(runId, owner, epoch);
    if (!run) return false;
    finish(run, update.status, update.outcome, now);
    return true;
  }

  async cancelPending(runId: string, outcome: StatusV2Payload, now: string): Promise<boolean> {
    const run = this.runs.get(runId)?.record;
    if (run?.status !== "pending") return false;
    finish(run, "interrupted", outcome, now);
    return true;
  }

  async withdrawPending(runId: string): Promise<boolean> {
    const stored = this.runs.get(runId);
    if (stored?.record.status !== "pending" || stored.record.epoch !== 0) return false;
    this.runs.delete(runId);
    this.journals.delete(runId);
    this.reports.delete(runId);
    return true;
  }

  async deleteFinishedRun(runId: string): Promise<boolean> {
    const stored = this.runs.get(runId);
    if (!stored || stored.record.status === "pending" || stored.record.status === "running") return false;
    this.runs.delete(runId);
    this.journals.delete(runId);
    this.reports.delete(runId);
    return true;
  }

  async countRuns(status: "pending" | "running"): Promise<number> {
    let count = 0;
    for (const stored of this.runs.values()) if (stored.record.status === status) count++;
    return count;
  }

  async expiredRuns(now: number): Promise<RunRecord[]> {
    return [...this.runs.values()]
      .filter((s) => leaseExpired(s.record, now))
      .sort(oldestFirst)
      .map((s) => jsonCopy(s.record));
  }

  async expireRun(runId: string, epoch: number, outcome: StatusV2Payload, now: number): Promise<boolean> {
    const run = this.runs.get(runId)?.record;
    if (!run || run.epoch !== epoch || !leaseExpired(run, now)) return false;
    finish(run, RUN_STATUS_OF_OUTCOME[outcome.status], outcome, isoAt(now));
    return true;
  }

  async appendJournal(runId: string, entries: readonly JournalEntry[], fence?: JournalFence): Promise<void> {
    if (entries.length === 0) return;
    if (fence) assertJournalFence(runId, this.runs.get(runId)?.record, fence, entries.length);
    const journal = this.journals.get(runId) ?? [];
    journal.push(...jsonCopy(entries));
    this.journals.set(runId, journal);
  }

  async readJournal(runId: string): Promise<JournalEntry[]> {
    return jsonCopy(this.journals.get(runId) ?? []);
  }

  async saveReport(runId: string, report: unknown): Promise<void> {
    this.reports.set(runId, jsonCopy(report));
  }

  async getReport(runId: string): Promise<unknown | null> {
    return this.reports.has(runId) ? jsonCopy(this.reports.get(runId)) : null;
  }

  private storedActive(threadId: string): StoredRun[] {
    return [...this.runs.values()].filter((s) => s.record.threadId === threadId && isActive(s.record.status)).sort(oldestFirst);
  }

  /** The live record of a running run held by owner+epoch (the CAS condition), if it is. */
  private heldRun(runId: string, owner: string, epoch: number): RunRecord | undefined {
    const run = this.runs.get(runId)?.record;
    return run?.status === "running" && run.owner === owner && run.epoch === epoch ? run : undefined;
  }
}

const THREAD_SORT_FIELDS = { thread_id: "threadId", status: "status", created_at: "createdAt", updated_at: "updatedAt" } as const;

/** `sortBy` in `order`, ties broken by the thread id in the same order (as store-sql sorts). */
function threadOrder(sortBy: ThreadSortBy, order: "asc" | "desc"): (a: ThreadRecord, b: ThreadRecord) => number {
  const field = THREAD_SORT_FIELDS[sortBy];
  const sign = order === "asc" ? 1 : -1;
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (a, b) => sign * (compare(a[field], b[field]) || compare(a.threadId, b.threadId));
}

function leaseExpired(run: RunRecord, now: number): boolean {
  return run.status === "running" && run.leaseExpiresAt !== undefined && run.leaseExpiresAt < isoAt(now);
}

/** A terminal write: the lease ends with the run (owner and epoch stay, for the record). */
function finish(run: RunRecord, status: RunRecordStatus, outcome: StatusV2Payload, now: string): void {
  run.status = status;
  run.outcome = jsonCopy(outcome);
  run.updatedAt = now;
  delete run.leaseExpiresAt;
}
