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
import { replacesActive, runLimitError, threadDeletedError } from "./admission.js";
import type { AdmissionLimits, AdmissionResult, JournalEntry, RunRecord, RunRecordStatus, RunStore, ThreadRecord, ThreadStatus } from "./types.js";

/** A stored run plus its admission order, the tie-break when two runs share `createdAt`. */
interface StoredRun {
  record: RunRecord;
  admitted: number;
}

const isoAt = (ms: number): string => new Date(ms).toISOString();

/** Values cross the store boundary as JSON, exactly as they do in the SQL store. */
function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function oldestFirst(a: StoredRun, b: StoredRun): number {
  if (a.record.createdAt !== b.record.createdAt) return a.record.createdAt < b.record.createdAt ? -1 : 1;
  return a.admitted - b.admitted;
}

function isActive(status: RunRecordStatus): boolean {
  return status === "pending" || status === "running";
}

export class MemoryRunStore implements RunStore {
  private readonly threads = new Map<string, ThreadRecord>();
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

  async searchThreads(filter: { owner: string; metadata?: Record<string, unknown>; status?: ThreadStatus; limit: number; offset: number }): Promise<ThreadRecord[]> {
    const wanted = Object.entries(jsonCopy(filter.metadata ?? {}));
    return [...this.threads.values()]
      .filter((t) => t.owner === filter.owner && !this.deleted.has(t.threadId))
      .filter((t) => filter.status === undefined || t.status === filter.status)
      .filter((t) => wanted.every(([key, value]) => Object.hasOwn(t.metadata, key) && isDeepStrictEqual(t.metadata[key], value)))
      .sort(newestThreadFirst)
      .slice(filter.offset, filter.offset + filter.limit)
      .map((t) => jsonCopy(t));
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
      .sort((a, b) => (a.record.updatedAt !== b.record.updatedAt ? (a.record.updatedAt < b.record.updatedAt ? -1 : 1) : a.admitted - b.admitted))
      .slice(0, limit)
      .map((s) => jsonCopy(s.record));
  }

  async admitRun(run: RunRecord, limits: AdmissionLimits = {}): Promise<AdmissionResult> {
    if (!this.threads.has(run.threadId)) {
      throw new KeelError("KEEL_ERR_STORE_THREAD_NOT_FOUND", `thread \`${run.threadId}\` does not exist`);
    }
    if (this.deleted.has(run.threadId)) throw threadDeletedError(run.threadId);
    if (this.runs.has(run.runId)) {
      throw new KeelError("KEEL_ERR_STORE_CONFLICT", `run \`${run.runId}\` already exists`);
    }
    const active = this.storedActive(run.threadId).map((s) => s.record);
    if (run.multitaskStrategy === "reject" && active.length > 0) {
      const blocking = active.find((r) => r.status === "running") ?? active[0]!;
      return { ok: false, active: jsonCopy(blocking) };
    }
    if (limits.maxActivePerUser !== undefined) {
      const counted = [...this.runs.values()].filter(
        ({ record }) => record.user === run.user && (record.status === "pending" || record.status === "running") && !(replacesActive(run) && record.threadId === run.threadId),
      ).length;
      if (counted >= limits.maxActivePerUser) throw runLimitError(run.user, counted, limits.maxActivePerUser);
    }
    const { owner: _owner, leaseExpiresAt: _lease, outcome: _outcome, ...rest } = jsonCopy(run);
    const record: RunRecord = { ...rest, status: "pending" };
    this.runs.set(run.runId, { record, admitted: this.admissions++ });
    return { ok: true, run: jsonCopy(record), active: jsonCopy(active) };
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

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return this.storedActive(threadId).map((s) => jsonCopy(s.record));
  }

  async claimNext(threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null> {
    const active = this.storedActive(threadId);
    if (active.some((s) => s.record.status === "running")) return null;
    const next = active.find((s) => s.record.status === "pending");
    if (!next) return null;
    Object.assign(next.record, {
      status: "running",
      owner,
      epoch: next.record.epoch + 1,
      leaseExpiresAt: isoAt(now + ttlMs),
      updatedAt: isoAt(now),
    } satisfies Partial<RunRecord>);
    return jsonCopy(next.record);
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

  async appendJournal(runId: string, entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
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

function newestThreadFirst(a: ThreadRecord, b: ThreadRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.threadId < b.threadId ? 1 : a.threadId > b.threadId ? -1 : 0;
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
