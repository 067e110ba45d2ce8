/**
 * Ports of the run service (kernel/runs/README.md): the RunStore (threads, runs, leases,
 * journal, reports) and the StreamBridge (a per-run ordered event log). The kernel holds
 * the in-memory implementations; durable ones are service plugins (`store-sql`,
 * `stream-redis`). Every implementation passes the same conformance suite.
 */
import type { MultitaskStrategy, RunRecordStatus } from "../../contracts/run/v1.js";
import type { JournalRecord, StreamEventRecord } from "../loop/run-scope.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { ThreadExpiryStore } from "./thread-expiry.js";

export type { MultitaskStrategy, RunRecordStatus };
export type StreamEvent = StreamEventRecord;
export type JournalEntry = JournalRecord;

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

/** What a thread search or count matches (every field optional but the owner). */
export interface ThreadFilter {
  owner: string;
  /** Top-level keys holding equal (JSON) values. */
  metadata?: Record<string, unknown>;
  status?: ThreadStatus;
  /** Only these thread ids (an empty list: no restriction, as LangGraph's server reads it). */
  ids?: readonly string[];
}

export type ThreadSortBy = "thread_id" | "status" | "created_at" | "updated_at";

/** A page of a thread search: `sortBy` (default `created_at`) in `sortOrder` (default `desc`); ties broken by `thread_id` in the same order. */
export interface ThreadSearch extends ThreadFilter {
  limit: number;
  offset: number;
  sortBy?: ThreadSortBy;
  sortOrder?: "asc" | "desc";
}

export interface ThreadRecord {
  threadId: string;
  /** The user who created it; others get 404. */
  owner: string;
  status: ThreadStatus;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** What the caller asked for (after request hygiene), kept with the run. */
export interface RunRequest {
  assistantId: string;
  input: unknown;
  config?: Record<string, unknown>;
  context?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  streamMode?: string[];
  /** LangGraph's `stream_subgraphs`: child agents' graph events go out too, under their namespace. */
  streamSubgraphs?: boolean;
  onDisconnect?: "cancel" | "continue";
  /** Turn limit after clamping to the server maximum. */
  maxTurns?: number;
  /** Start from this earlier checkpoint of the thread (root namespace): a fork (checkpoint-fork.ts). */
  checkpointId?: string;
  /** Resume a paused thread with LangGraph's Command (`resume`, `update`, `goto`); `input` is then ignored. */
  command?: { resume?: unknown; update?: Record<string, unknown> | null; goto?: unknown };
  /** Pause before / after these loop nodes (`"*"` or `agent`, `tools`): LangGraph's interrupt_before / interrupt_after. */
  interruptBefore?: "*" | string[];
  interruptAfter?: "*" | string[];
}

/** run@1 plus the request and the user. */
export interface RunRecord {
  runId: string;
  threadId: string;
  assistantId: string;
  status: RunRecordStatus;
  outcome?: StatusV2Payload;
  multitaskStrategy: MultitaskStrategy;
  /** Worker holding the lease while running. */
  owner?: string;
  /** Incremented on every claim; terminal writes compare it (CAS). */
  epoch: number;
  leaseExpiresAt?: string;
  createdAt: string;
  updatedAt: string;
  /**
   * When the run may start (ISO-8601). Absent at admission: at once, whatever the
   * claimer's clock says (read back as its `createdAt`, the time it sorts by). Stores
   * always return it. The claim queue never starts a scheduled run before it is due.
   */
  dueAt?: string;
  /**
   * Admission order, assigned by the store inside the admission transaction (ignored on
   * input; stores always return it): a thread's runs start in this order, whatever their
   * `createdAt` stamps say.
   */
  sequence?: number;
  user: string;
  request: RunRequest;
}

export type AdmissionResult =
  /**
   * Admitted (persisted as `pending`, or `running` with `AdmissionStart`); `active` are the
   * runs an interrupt/rollback must still cancel. With `AdmissionReplace` the thread's
   * pending runs were superseded in the admission transaction: they are in `superseded`
   * (as written, `interrupted`), and `active` holds only its running run, if any.
   */
  | { ok: true; run: RunRecord; active: RunRecord[]; superseded?: RunRecord[] }
  /**
   * Refused, nothing written: under `reject` because `active` is pending or running (the
   * running run if any, else the oldest pending); under `rollback` with `AdmissionReplace`
   * because `active` is a running run not in `rollbackChecked` (check it, then try again).
   */
  | { ok: false; active: RunRecord };

/**
 * Interrupt/rollback inside the admission transaction (one transaction per admission, so
 * a storm of them never cancels the same queue over and over): the thread's pending runs
 * (never started: nothing to abort or undo) are written `interrupted` with `outcome` at
 * `now` and returned as `superseded`; only a running run is left to the caller. Under
 * `rollback` a running run whose id is not in `rollbackChecked` refuses the admission
 * before anything is written (the caller checks that it can be undone and tries again).
 */
export interface AdmissionReplace {
  outcome: StatusV2Payload;
  now: string;
  rollbackChecked: readonly string[];
}

/** Checked inside the admission transaction, so concurrent admissions cannot overshoot. */
export interface AdmissionLimits {
  /**
   * Running runs plus due pending runs (due at once, or scheduled and due by the new run's
   * `createdAt`) `run.user` may have across threads; admitting one more that is due at once
   * throws KEEL_ERR_RUN_LIMIT (a run scheduled for later is not counted, nor limited, until
   * it is due). Under
   * interrupt/rollback the thread's active runs, which the new run replaces, do not count.
   */
  maxActivePerUser?: number;
}

/**
 * Start the admitted run at once for `owner` — inserted `running`, epoch + 1, lease until
 * now + ttl — when it is due at once (no `dueAt`) and its thread has no other pending or
 * running run (so it is the thread's next run). In the admission transaction: no other
 * worker can claim it first. Otherwise it is admitted `pending`, as without this.
 */
export interface AdmissionStart {
  owner: string;
  ttlMs: number;
  now: number;
}

/** `ThreadExpiryStore`'s methods are optional: a store without them serves no thread TTL (thread-expiry.ts). */
export interface RunStore extends Partial<ThreadExpiryStore> {
  /** Create or migrate the schema. */
  init(): Promise<void>;
  close(): Promise<void>;
  /** Readiness (optional): resolves when the backend answers a trivial query now, rejects when it does not (`GET /ready`). */
  ping?(): Promise<void>;

  /** Throws `KEEL_ERR_STORE_CONFLICT` when the thread id is taken. */
  createThread(thread: ThreadRecord): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | null>;
  /** Replaces the given fields (metadata is replaced, not merged) and sets `updatedAt`; a missing thread is a no-op. */
  updateThread(threadId: string, patch: Partial<Pick<ThreadRecord, "status" | "metadata">>, now: string): Promise<void>;
  /** Newest first (`createdAt`) unless `sortBy`/`sortOrder` say otherwise; `metadata` matches threads whose top-level keys hold equal values. */
  searchThreads(filter: ThreadSearch): Promise<ThreadRecord[]>;
  /** How many threads `searchThreads` would find without paging (threads marked deleted are not counted). */
  countThreads(filter: ThreadFilter): Promise<number>;
  /** Deletes the thread with its runs, journal and reports (and its deletion mark). */
  deleteThread(threadId: string): Promise<boolean>;
  /**
   * The deletion mark (a tombstone), set in one write: from then on `getThread` answers
   * null, `searchThreads` skips the thread, `updateThread` leaves it alone, and `admitRun`
   * refuses it with `KEEL_ERR_STORE_THREAD_DELETED` (an admission racing the mark is
   * either committed before it or refused). `createThread` with its id still conflicts
   * until `deleteThread` removed it. False when the thread does not exist or is marked already.
   */
  markThreadDeleted(threadId: string, now: string): Promise<boolean>;
  /** Ids of threads marked deleted whose purge has not finished (oldest mark first): a sweep resumes them. Optional. */
  deletedThreads?(limit: number): Promise<string[]>;
  /**
   * Finished runs (any terminal status) whose last write (`updatedAt`) is after `after`
   * and at most `until`, oldest first, at most `limit`: the recovery sweep looks among
   * them for streams that lack `end`. Optional: without it there is no such sweep.
   */
  endedRuns?(after: string, until: string, limit: number): Promise<RunRecord[]>;

  /**
   * Admission in one transaction holding a row lock on the thread: reads the thread's
   * pending and running runs; under `reject` with any active run, refuses; otherwise
   * inserts `run` as `pending` (or `running`, see `start`); under interrupt/rollback with
   * `replace`, supersedes the pending ones in the same transaction (`AdmissionReplace`).
   * Persisted before it is visible; on failure nothing is. Throws `KEEL_ERR_STORE_THREAD_NOT_FOUND` for an unknown thread.
   */
  admitRun(run: RunRecord, limits?: AdmissionLimits, start?: AdmissionStart, replace?: AdmissionReplace): Promise<AdmissionResult>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Newest first. */
  listRuns(threadId: string, options: { limit: number; offset: number; status?: RunRecordStatus }): Promise<RunRecord[]>;
  /** Pending and running runs of a thread, oldest first. */
  activeRuns(threadId: string): Promise<RunRecord[]>;
  /**
   * How many runs, across every thread, have this status (the metrics gauges read it at
   * scrape time). Optional: without it a host reports only the runs executing on its worker.
   */
  countRuns?(status: "pending" | "running"): Promise<number>;
  /**
   * A user's most recent runs across threads, newest first (`createdAt`), at most `limit`,
   * optionally only these statuses, this assistant, this thread (the run-status feed's
   * snapshot: one query). Optional: without it the gateway reads the user's threads and their runs.
   */
  recentRuns?(filter: RecentRunsFilter): Promise<RunRecord[]>;

  /**
   * Claim the thread's next run for `owner`: its due pending run (`dueAt` ≤ now) with the
   * lowest `sequence` → running, epoch + 1, lease until now + ttl. Null when a run of the
   * thread is already running (a partial unique index on running runs makes this hold
   * across workers) or none is pending and due.
   */
  claimNext(threadId: string, owner: string, ttlMs: number, now: number): Promise<RunRecord | null>;
  /**
   * The claim queue: claim the next due run of any thread for `owner`, as `claimNext` does
   * for one. The candidates are, on every thread with no running run, its due pending run
   * with the lowest `sequence`; the one claimed is the earliest `dueAt`, then the lowest
   * `sequence`. Atomic across workers: two claimers never get the same run. Null when no
   * run is due.
   */
  claimDue(owner: string, ttlMs: number, now: number): Promise<RunRecord | null>;
  /** Extend the lease; false when the run is no longer held by owner+epoch. */
  heartbeat(runId: string, owner: string, epoch: number, ttlMs: number, now: number): Promise<boolean>;
  /** Terminal write, compare-and-swap on owner+epoch of a running run. */
  completeRun(runId: string, owner: string, epoch: number, update: { status: RunRecordStatus; outcome: StatusV2Payload }, now: string): Promise<boolean>;
  /** Terminal write for a run that never started (pending → interrupted, e.g. cancelled while queued). */
  cancelPending(runId: string, outcome: StatusV2Payload, now: string): Promise<boolean>;
  /**
   * Optional: delete a run that is still `pending` and never started, as if it had never been
   * admitted (an admission withdrawn after its insert, e.g. a refused `rollback`); true when
   * deleted. Without it the run manager falls back to `cancelPending` (the record stays).
   */
  withdrawPending?(runId: string): Promise<boolean>;
  /**
   * Optional: delete a finished run (any terminal status) with its journal and report, in
   * one transaction (the API's `DELETE /threads/:tid/runs/:rid`); true when deleted, false
   * when it does not exist or is still pending or running (it is then left alone).
   */
  deleteFinishedRun?(runId: string): Promise<boolean>;
  /** Running runs whose lease expired before `now`. */
  expiredRuns(now: number): Promise<RunRecord[]>;
  /** The reaper's terminal write: CAS on epoch of a running run whose lease expired; `status` follows the outcome. */
  expireRun(runId: string, epoch: number, outcome: StatusV2Payload, now: number): Promise<boolean>;

  /**
   * Append entries. With `fence`, in the same transaction: the run must be `running`, held
   * by `fence.owner` at `fence.epoch`, its lease unexpired at `fence.now`; otherwise throws
   * `KEEL_ERR_LEASE_FENCED` and writes nothing (a worker that lost its lease adds nothing).
   */
  appendJournal(runId: string, entries: readonly JournalEntry[], fence?: JournalFence): Promise<void>;
  readJournal(runId: string): Promise<JournalEntry[]>;
  /** The run-report@1 document, saved at finalization. */
  saveReport(runId: string, report: unknown): Promise<void>;
  getReport(runId: string): Promise<unknown | null>;
}

/** What `RunStore.recentRuns` matches. */
export interface RecentRunsFilter {
  user: string;
  limit: number;
  statuses?: readonly RunRecordStatus[];
  assistantId?: string;
  threadId?: string;
}

/** The lease a journal write is made under (checked by the store in the write's transaction). */
export interface JournalFence {
  owner: string;
  epoch: number;
  /** The writer's clock (ms): the lease must be unexpired at this time. */
  now: number;
}

/** Control messages between workers (e.g. cancel a run another worker owns). */
export interface ControlMessage {
  type: "cancel";
  action: "interrupt" | "rollback";
}

export interface SubscribeOptions {
  /** Replay events after this id (`Last-Event-ID`); from the start when absent. */
  lastEventId?: string;
  signal?: AbortSignal;
}

/** What a publisher says about an event besides its name and data. */
export interface PublishOptions {
  /** The run's lease epoch the event is published under; recorded on the event (`epoch`). */
  epoch?: number;
}

export interface StreamBridge {
  /**
   * True when `publish`/`end` calls that are not awaited one by one still land in call
   * order per run (the Redis bridge batches them): a run then hands every event over at
   * once instead of waiting for the previous one. Absent: one publish at a time.
   */
  readonly orderedPublish?: boolean;
  /**
   * Append an event; ids are `<ms>-<seq>`, strictly increasing per run (order them with
   * `compareEventIds`). Throws `KEEL_ERR_STREAM_RESERVED_EVENT` for `end`/`gap` and
   * `KEEL_ERR_STREAM_ENDED` after `end`.
   */
  publish(runId: string, event: string, data: unknown, options?: PublishOptions): Promise<StreamEvent>;
  /** Append the final `end` event (the commit marker) and start the retention countdown; a second call returns the first `end`. */
  end(runId: string, options?: PublishOptions): Promise<StreamEvent>;
  /**
   * Replay retained events after `lastEventId`, then follow live until `end` (inclusive).
   * When `lastEventId` fell out of retention: one `gap` event (stream-event@1) and done.
   * Throws `KEEL_ERR_STREAM_EVENT_ID_INVALID` at the call (not at the first `next()`) for a
   * malformed `lastEventId`. Exact semantics: kernel/runs/stream-gap.ts and the conformance suite.
   */
  subscribe(runId: string, options?: SubscribeOptions): AsyncIterable<StreamEvent>;
  /** Every retained event of the run, oldest first. */
  read(runId: string): Promise<StreamEvent[]>;
  /**
   * The newest `count` retained events of the log, oldest first (the run-status feed reads
   * its recent summaries and its cursor with it). Optional: without it `read` is used.
   */
  readLatest?(runId: string, count: number): Promise<StreamEvent[]>;
  /**
   * Forget these runs' logs now (a thread's purge): afterwards `read` answers `[]` and a
   * replay finds nothing, as for a run that never published. Optional: a bridge without it
   * keeps deleted runs' events until its own retention drops them.
   */
  deleteRuns?(runIds: readonly string[]): Promise<void>;
  publishControl(runId: string, message: ControlMessage): Promise<void>;
  /** Receive control messages for a run; returns an unsubscribe function. */
  onControl(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Readiness (optional): resolves when the backend (e.g. Redis) answers now, rejects when it does not (`GET /ready`). */
  ping?(): Promise<void>;
}
