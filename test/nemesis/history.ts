/**
 * The history checker (Jepsen-style). A `History` is every answer clients were given
 * (HTTP status, body or SSE events, timestamps) and every fault the suite injected; a
 * `StoreView` is what the database holds at the end, plus the database's own ordered
 * audit of lease changes and writes (`audit.ts`). `checkHistory` verifies:
 *
 * - `unstored_success`: no answer claimed a success the store does not hold (an admitted
 *   run that is not stored; a `/wait`/`/join` without `__error__` or a `GET` run `success`
 *   for a run the store ended otherwise);
 * - `overlapping_runs`: no two runs held a running lease on one thread at once (from the
 *   audit's claim → end intervals), and at the end at most one run per thread is running;
 * - `write_after_fence`: no write made under a lease (run, epoch) after that lease ended
 *   (reaped, completed, claimed again), and no write of a lease after the first write of a
 *   later lease on the same thread;
 * - `unanswered_waiter`: every request got an HTTP answer, and every stream an `end`, unless
 *   the client gave up on purpose or the worker it spoke to was killed or paused meanwhile;
 * - `stranded_run`: every admitted run the store holds has ended;
 * - `deleted_thread_readable`: after a delete was answered, no read of that thread answered
 *   with its data (until someone re-created it), and the store and the workspaces hold none
 *   of it at the end.
 *
 * Pure: the scenarios build the inputs, the unit tests (test/nemesis-checker) feed it
 * synthetic histories with each kind of violation.
 */

export type Op =
  | "create_thread"
  | "delete_thread"
  | "read_thread"
  | "create_run"
  | "wait"
  | "join"
  | "stream"
  | "get_run"
  | "cancel"
  | "other";

export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

export interface Answer {
  id: number;
  scenario: string;
  worker: string;
  op: Op;
  method: string;
  path: string;
  threadId?: string;
  /** From the path, the body's `run_id` or the `content-location` header. */
  runId?: string;
  sentAt: number;
  endedAt: number;
  /** Absent when no HTTP answer came (`error` says why). */
  status?: number;
  body?: unknown;
  /** A stream's events, in order. */
  events?: SseEvent[];
  error?: string;
  /** The client gave up on purpose (a disconnect the scenario injected). */
  abandoned?: boolean;
}

export interface Fault {
  scenario: string;
  kind: "worker_kill" | "worker_pause" | "worker_term" | "redis_kill" | "redis_refuse" | "pg_stop" | "pg_terminate" | "client_disconnect" | "delete_race" | "other";
  /** A worker name, `redis` or `postgres`. */
  target: string;
  at: number;
  /** When the fault was lifted (a resumed worker, a restarted service); a kill never is. */
  until?: number;
}

export interface History {
  answers: Answer[];
  faults: Fault[];
}

export interface StoredRun {
  runId: string;
  threadId: string;
  status: string;
  epoch: number;
  /** The outcome's primary stop reason (e.g. `lease_expired`), when stored. */
  stopReason?: string;
}

/** One row of the database's audit, in the database's own order (`seq`). */
export interface AuditEvent {
  seq: number;
  at: number;
  table: string;
  op: "INSERT" | "UPDATE" | "DELETE";
  threadId: string | null;
  runId: string | null;
  /** The lease epoch the row carries (checkpoint rows, a run row's new epoch, and any other row that has an `epoch`). */
  epoch: number | null;
  /** keel_runs only: the status before and after. */
  oldStatus?: string | null;
  status?: string | null;
  oldEpoch?: number | null;
}

/** What a deleted thread left behind, per place (`runs`, `keel_ckpt_checkpoints`, `workspace`, …). */
export type Leftovers = Record<string, number>;

export interface StoreView {
  runs: StoredRun[];
  audit: AuditEvent[];
  /** For each thread asked about (the deleted ones): what the store and the workspace still hold of it. */
  leftovers: Record<string, Leftovers>;
  /** Writes of other kinds (stream events, workspace files) with the lease they were made under, when the product records them. */
  extraWrites?: AuditEvent[];
}

export type ViolationKind = "unstored_success" | "overlapping_runs" | "write_after_fence" | "unanswered_waiter" | "stranded_run" | "deleted_thread_readable";

export interface Violation {
  kind: ViolationKind;
  message: string;
  threadId?: string;
  runId?: string;
  answerId?: number;
}

export interface CheckResult {
  violations: Violation[];
  figures: { answers: number; runs: number; faults: number; writes: number; leases: number; lost: number };
}

/** The tables whose inserts and updates are writes made under a lease. */
export const WRITE_TABLES = new Set(["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes", "keel_journal_entries", "keel_reports"]);
export const RUNS_TABLE = "keel_runs";
const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);

interface Lease {
  runId: string;
  threadId: string;
  epoch: number;
  claimedSeq: number;
  /** The first audit row where the run left `running` at this epoch (or was claimed again); Infinity while held. */
  endedSeq: number;
}

/** The leases of the audit: each claim (→ running, epoch e) until the run's row leaves that state. */
export function leasesOf(audit: AuditEvent[]): Lease[] {
  const leases: Lease[] = [];
  const open = new Map<string, Lease>();
  for (const event of [...audit].sort((a, b) => a.seq - b.seq)) {
    if (event.table !== RUNS_TABLE || event.runId === null) continue;
    const held = open.get(event.runId);
    const running = event.op !== "DELETE" && event.status === "running";
    if (held && (!running || event.epoch !== held.epoch)) {
      held.endedSeq = event.seq;
      open.delete(event.runId);
    }
    if (running && !open.has(event.runId) && event.threadId !== null && event.epoch !== null) {
      const lease: Lease = { runId: event.runId, threadId: event.threadId, epoch: event.epoch, claimedSeq: event.seq, endedSeq: Number.POSITIVE_INFINITY };
      leases.push(lease);
      open.set(event.runId, lease);
    }
  }
  return leases;
}

function overlappingRuns(leases: Lease[], runs: StoredRun[]): Violation[] {
  const violations: Violation[] = [];
  const byThread = new Map<string, Lease[]>();
  for (const lease of leases) byThread.set(lease.threadId, [...(byThread.get(lease.threadId) ?? []), lease]);
  for (const [threadId, list] of byThread) {
    list.sort((a, b) => a.claimedSeq - b.claimedSeq);
    for (let i = 1; i < list.length; i++) {
      const previous = list[i - 1]!;
      const next = list[i]!;
      if (next.claimedSeq < previous.endedSeq) {
        violations.push({ kind: "overlapping_runs", threadId, runId: next.runId, message: `run ${next.runId} (epoch ${next.epoch}) was claimed at audit #${next.claimedSeq} while run ${previous.runId} (epoch ${previous.epoch}) still held thread ${threadId} (until #${previous.endedSeq})` });
      }
    }
  }
  const running = new Map<string, string[]>();
  for (const run of runs) if (run.status === "running") running.set(run.threadId, [...(running.get(run.threadId) ?? []), run.runId]);
  for (const [threadId, ids] of running) {
    if (ids.length > 1) violations.push({ kind: "overlapping_runs", threadId, message: `thread ${threadId} ends with ${ids.length} running runs: ${ids.join(", ")}` });
  }
  return violations;
}

function writesAfterFence(leases: Lease[], writes: AuditEvent[]): Violation[] {
  const violations: Violation[] = [];
  const leaseOf = new Map(leases.map((l) => [`${l.runId}@${l.epoch}`, l]));
  const fenced = writes.filter((w) => w.runId !== null && w.epoch !== null).sort((a, b) => a.seq - b.seq);
  const firstWriteOf = new Map<Lease, number>();
  for (const write of fenced) {
    const lease = leaseOf.get(`${write.runId}@${write.epoch}`);
    if (lease !== undefined && !firstWriteOf.has(lease)) firstWriteOf.set(lease, write.seq);
  }
  for (const write of fenced) {
    const lease = leaseOf.get(`${write.runId}@${write.epoch}`);
    const what = `${write.table} write #${write.seq} under run ${write.runId} epoch ${write.epoch}`;
    if (lease === undefined) {
      violations.push({ kind: "write_after_fence", runId: write.runId!, message: `${what}, a lease the store never granted` });
      continue;
    }
    if (write.seq > lease.endedSeq) {
      violations.push({ kind: "write_after_fence", threadId: lease.threadId, runId: lease.runId, message: `${what} after that lease ended at audit #${lease.endedSeq}` });
      continue;
    }
    // Leases on one thread are ordered by their claims: a later lease's first write fences every earlier lease.
    const overtaken = leases
      .filter((l) => l.threadId === lease.threadId && l.claimedSeq > lease.claimedSeq && (firstWriteOf.get(l) ?? Number.POSITIVE_INFINITY) < write.seq)
      .sort((a, b) => firstWriteOf.get(a)! - firstWriteOf.get(b)!)[0];
    if (overtaken !== undefined) {
      violations.push({ kind: "write_after_fence", threadId: lease.threadId, runId: lease.runId, message: `${what} follows write #${firstWriteOf.get(overtaken)} of the later lease ${overtaken.runId} epoch ${overtaken.epoch} on thread ${lease.threadId}` });
    }
  }
  return violations;
}

function wasSuccessClaim(answer: Answer): "admitted" | "not_failed" | "success" | undefined {
  if (answer.status !== 200) return undefined;
  const body = answer.body as Record<string, unknown> | undefined;
  if (answer.op === "create_run") return "admitted";
  if (answer.op === "wait" || answer.op === "join") {
    if (body === undefined || body === null || typeof body !== "object" || "__error__" in body) return undefined;
    const outcome = (body as { outcome?: { status?: string } }).outcome?.status;
    return outcome === "succeeded" || outcome === "partial" ? "success" : "not_failed";
  }
  if (answer.op === "get_run" && (body as { status?: string } | undefined)?.status === "success") return "success";
  return undefined;
}

/** Deletes answered with a success, per thread, and the times the thread was (re-)created successfully. */
function deletions(answers: Answer[]): { deleted: Map<string, number[]>; created: Map<string, number[]> } {
  const deleted = new Map<string, number[]>();
  const created = new Map<string, number[]>();
  for (const a of answers) {
    if (a.threadId === undefined || a.status === undefined) continue;
    if (a.op === "delete_thread" && a.status >= 200 && a.status < 300) deleted.set(a.threadId, [...(deleted.get(a.threadId) ?? []), a.endedAt]);
    if (a.op === "create_thread" && a.status === 200) created.set(a.threadId, [...(created.get(a.threadId) ?? []), a.sentAt]);
  }
  return { deleted, created };
}

/** A thread is gone at `t` when a delete was answered before `t` and no creation was sent between the two. */
function goneAt(threadId: string, t: number, d: ReturnType<typeof deletions>): boolean {
  const lastDelete = Math.max(...(d.deleted.get(threadId) ?? []).filter((x) => x < t), Number.NEGATIVE_INFINITY);
  if (lastDelete === Number.NEGATIVE_INFINITY) return false;
  return !(d.created.get(threadId) ?? []).some((c) => c >= lastDelete && c < t);
}

/** A delete of the thread was answered after `t`: what was admitted before may be purged. */
function deletedSince(threadId: string, t: number, d: ReturnType<typeof deletions>): boolean {
  return (d.deleted.get(threadId) ?? []).some((answeredAt) => answeredAt >= t);
}

function unstoredSuccesses(history: History, store: StoreView, d: ReturnType<typeof deletions>): Violation[] {
  const violations: Violation[] = [];
  const runs = new Map(store.runs.map((r) => [r.runId, r]));
  for (const answer of history.answers) {
    const claim = wasSuccessClaim(answer);
    if (claim === undefined) continue;
    if (answer.threadId !== undefined && deletedSince(answer.threadId, answer.sentAt, d)) continue; // deleted since: checked by deleted_thread_readable
    if (answer.runId === undefined) {
      violations.push({ kind: "unstored_success", answerId: answer.id, message: `answer #${answer.id} (${answer.method} ${answer.path}) claims ${claim} but names no run` });
      continue;
    }
    const run = runs.get(answer.runId);
    const where = `answer #${answer.id} (${answer.method} ${answer.path} → ${answer.status})`;
    if (run === undefined) {
      violations.push({ kind: "unstored_success", answerId: answer.id, runId: answer.runId, message: `${where} claims run ${answer.runId} ${claim}, but the store holds no such run` });
    } else if (claim === "success" && run.status !== "success") {
      violations.push({ kind: "unstored_success", answerId: answer.id, runId: answer.runId, message: `${where} claims run ${answer.runId} succeeded, but the store says ${run.status}` });
    } else if (claim === "not_failed" && (run.status === "error" || run.status === "timeout")) {
      violations.push({ kind: "unstored_success", answerId: answer.id, runId: answer.runId, message: `${where} answered run ${answer.runId} without __error__, but the store says ${run.status}` });
    }
  }
  return violations;
}

/** A fault that excuses a missing answer: the worker the request went to was killed or paused while it was open. */
function excused(answer: Answer, faults: Fault[]): boolean {
  if (answer.abandoned) return true;
  return faults.some(
    (f) => f.target === answer.worker && (f.kind === "worker_kill" || f.kind === "worker_pause") && f.at <= answer.endedAt && (f.until === undefined || f.until >= answer.sentAt),
  );
}

function unansweredWaiters(history: History): Violation[] {
  const violations: Violation[] = [];
  for (const answer of history.answers) {
    if (excused(answer, history.faults)) continue;
    if (answer.status === undefined) {
      violations.push({ kind: "unanswered_waiter", answerId: answer.id, message: `answer #${answer.id} (${answer.method} ${answer.path} on ${answer.worker}) got no HTTP answer: ${answer.error ?? "unknown"}` });
    } else if (answer.op === "stream" && answer.status === 200 && answer.events?.at(-1)?.event !== "end") {
      violations.push({ kind: "unanswered_waiter", answerId: answer.id, message: `stream #${answer.id} (${answer.path} on ${answer.worker}) closed without \`end\` (last: ${answer.events?.at(-1)?.event ?? "nothing"})${answer.error ? `: ${answer.error}` : ""}` });
    }
  }
  return violations;
}

function strandedRuns(store: StoreView, d: ReturnType<typeof deletions>): Violation[] {
  return store.runs
    .filter((r) => !TERMINAL.has(r.status) && !goneAt(r.threadId, Number.POSITIVE_INFINITY, d))
    .map((r) => ({ kind: "stranded_run" as const, threadId: r.threadId, runId: r.runId, message: `run ${r.runId} on thread ${r.threadId} is still ${r.status} at the end` }));
}

const READS: ReadonlySet<Op> = new Set(["read_thread", "get_run", "join", "wait", "stream", "create_run"]);

function deletedThreadReadable(history: History, store: StoreView, d: ReturnType<typeof deletions>): Violation[] {
  const violations: Violation[] = [];
  for (const answer of history.answers) {
    if (answer.threadId === undefined || answer.status === undefined || !READS.has(answer.op)) continue;
    if (answer.status < 200 || answer.status >= 300) continue;
    if (goneAt(answer.threadId, answer.sentAt, d)) {
      violations.push({ kind: "deleted_thread_readable", threadId: answer.threadId, answerId: answer.id, message: `answer #${answer.id} (${answer.method} ${answer.path} → ${answer.status}) was sent after thread ${answer.threadId} was deleted and answered with its data` });
    }
  }
  for (const threadId of d.deleted.keys()) {
    if (!goneAt(threadId, Number.POSITIVE_INFINITY, d)) continue;
    const left = Object.entries(store.leftovers[threadId] ?? {}).filter(([, n]) => n > 0);
    if (left.length > 0) violations.push({ kind: "deleted_thread_readable", threadId, message: `deleted thread ${threadId} still has ${left.map(([place, n]) => `${n} in ${place}`).join(", ")}` });
  }
  return violations;
}

export function checkHistory(history: History, store: StoreView): CheckResult {
  const d = deletions(history.answers);
  const leases = leasesOf(store.audit);
  const writes = [...store.audit.filter((e) => WRITE_TABLES.has(e.table) && e.op !== "DELETE"), ...(store.extraWrites ?? [])];
  const violations = [
    ...unstoredSuccesses(history, store, d),
    ...overlappingRuns(leases, store.runs),
    ...writesAfterFence(leases, writes),
    ...unansweredWaiters(history),
    ...strandedRuns(store, d),
    ...deletedThreadReadable(history, store, d),
  ];
  const lost = violations.filter((v) => v.kind === "unstored_success" || v.kind === "stranded_run").length;
  return { violations, figures: { answers: history.answers.length, runs: store.runs.length, faults: history.faults.length, writes: writes.length, leases: leases.length, lost } };
}

/** One line for the suite's summary. */
export function summaryLine(scenario: string, result: CheckResult): string {
  const f = result.figures;
  const kinds = [...new Set(result.violations.map((v) => v.kind))];
  return `nemesis ${scenario}: faults ${f.faults}, runs ${f.runs}, answers checked ${f.answers}, writes checked ${f.writes}, leases ${f.leases}, lost ${f.lost}, violations ${result.violations.length}${kinds.length ? ` (${kinds.join(", ")})` : ""}`;
}
