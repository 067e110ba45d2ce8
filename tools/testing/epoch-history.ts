/**
 * The lease epochs a thread's writes were made under, for a history checker: every
 * checkpoint row and pending write (store-sql's checkpointer records `run_id`, `epoch`),
 * every journal entry and stream event of the thread's runs (`epoch`), and every workspace
 * file write (the workspace plugin's write log), each list in the order the writes
 * happened. `epochViolations` checks the fencing rule on them: once a write of a newer
 * lease generation landed, no write of an older one follows.
 *
 * A lease generation on a thread is (the run's admission order, the run's epoch): a run
 * admitted later supersedes an earlier one (the earlier one was ended or reaped before the
 * later one could start), and within a run a claim with epoch e + 1 supersedes epoch e.
 *
 * Order of each list: checkpoints — SQLite's `rowid` (insertion order), PostgreSQL's
 * `checkpoint_id` (uuid6: the writer's clock); pending writes after them the same way;
 * journal — per run, store order, runs in admission order (so only a regression inside a
 * run shows there); events — per run, stream order (the same); workspace — the write log's
 * line order (thread-wide).
 */
import type { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { readWriteLog } from "../../plugins/workspace/write-log.js";
import type { RunRecord, RunStore, StreamBridge } from "../../kernel/runs/types.js";

export type EpochWriteKind = "checkpoint" | "checkpoint_write" | "journal" | "event" | "workspace";

export interface EpochWrite {
  kind: EpochWriteKind;
  /** The run the write was made for; null for a checkpoint written without a fence. */
  runId: string | null;
  /** Its lease epoch; null when the write carried none. */
  epoch: number | null;
  /** A delegated child's write: its own delegation lease's epoch. */
  leaseEpoch?: number;
  /** What was written: a checkpoint id (with `@<thread>` for a child's checkpoint thread), journal seq, event id, file path. */
  ref: string;
}

export interface EpochHistory {
  threadId: string;
  /** The thread's runs, oldest admission first (the generation order). */
  runs: Array<Pick<RunRecord, "runId" | "epoch" | "status">>;
  checkpoints: EpochWrite[];
  checkpointWrites: EpochWrite[];
  journal: EpochWrite[];
  events: EpochWrite[];
  workspace: EpochWrite[];
}

export interface EpochHistorySources {
  /** The stream bridge, for events (omitted: no events collected). */
  bridge?: StreamBridge;
  /** The workspace plugin's options (`root`), for file writes (omitted: none collected). */
  workspace?: Readonly<Record<string, unknown>>;
  /** How many runs of the thread to read (default 10,000). */
  maxRuns?: number;
}

/**
 * @example
 * const history = await collectEpochHistory(store, checkpointer, "t1", { bridge, workspace: { root } });
 * expect(epochViolations(history)).toEqual([]);
 */
export async function collectEpochHistory(store: RunStore, checkpointer: KeelCheckpointSaver, threadId: string, sources: EpochHistorySources = {}): Promise<EpochHistory> {
  const runs = (await store.listRuns(threadId, { limit: sources.maxRuns ?? 10_000, offset: 0 })).reverse();
  const sqlite = checkpointer.executor.dialect === "sqlite";
  const order = sqlite ? "rowid" : "checkpoint_id";
  const rows = (table: string, ref: string) =>
    checkpointer.executor.all(`SELECT thread_id, ${ref} AS ref, run_id, epoch FROM ${table} WHERE thread_id = ? OR thread_id LIKE ? ORDER BY ${order}`, [threadId, `${threadId}/%`]);
  const toWrite = (kind: EpochWriteKind) => (row: Record<string, unknown>): EpochWrite => ({
    kind,
    runId: row.run_id === null || row.run_id === undefined ? null : String(row.run_id),
    epoch: row.epoch === null || row.epoch === undefined ? null : Number(row.epoch),
    ref: row.thread_id === threadId ? String(row.ref) : `${String(row.ref)}@${String(row.thread_id)}`,
  });
  const checkpoints = (await rows("keel_ckpt_checkpoints", "checkpoint_id")).map(toWrite("checkpoint"));
  const checkpointWrites = (await rows("keel_ckpt_writes", sqlite ? "checkpoint_id || '/' || task_id || '/' || idx" : "checkpoint_id || '/' || task_id || '/' || idx::text")).map(toWrite("checkpoint_write"));

  const journal: EpochWrite[] = [];
  const events: EpochWrite[] = [];
  for (const run of runs) {
    for (const entry of await store.readJournal(run.runId)) {
      journal.push({ kind: "journal", runId: run.runId, epoch: entry.epoch ?? null, ...(entry.leaseEpoch === undefined ? {} : { leaseEpoch: entry.leaseEpoch }), ref: String(entry.seq) });
    }
    if (sources.bridge) {
      for (const event of await sources.bridge.read(run.runId)) events.push({ kind: "event", runId: run.runId, epoch: event.epoch ?? null, ref: event.id });
    }
  }
  const workspace: EpochWrite[] = sources.workspace
    ? (await readWriteLog(sources.workspace, threadId)).map((w) => ({ kind: "workspace", runId: w.runId, epoch: w.epoch, ...(w.leaseEpoch === undefined ? {} : { leaseEpoch: w.leaseEpoch }), ref: w.path }))
    : [];
  return { threadId, runs: runs.map((r) => ({ runId: r.runId, epoch: r.epoch, status: r.status })), checkpoints, checkpointWrites, journal, events, workspace };
}

export interface EpochViolation {
  kind: EpochWriteKind;
  /** The offending write: made under an older lease generation than one already written. */
  write: EpochWrite;
  /** Position in its list. */
  index: number;
  /** The newer write that came first. */
  after: EpochWrite;
}

/**
 * Writes that broke the fencing rule: a write of lease generation g after one of a newer
 * generation in the same list. Writes without a run or epoch (unfenced) are not judged.
 */
export function epochViolations(history: EpochHistory): EpochViolation[] {
  const position = new Map(history.runs.map((r, i) => [r.runId, i]));
  const newer = (a: EpochWrite, b: EpochWrite) => {
    const ra = position.get(a.runId!) ?? -1;
    const rb = position.get(b.runId!) ?? -1;
    return ra !== rb ? ra > rb : a.epoch! > b.epoch!;
  };
  const out: EpochViolation[] = [];
  for (const list of [history.checkpoints, history.checkpointWrites, history.journal, history.events, history.workspace]) {
    let newest: EpochWrite | undefined;
    list.forEach((write, index) => {
      if (write.runId === null || write.epoch === null) return;
      if (newest && newer(newest, write)) out.push({ kind: write.kind, write, index, after: newest });
      else if (!newest || newer(write, newest)) newest = write;
    });
  }
  return out;
}
