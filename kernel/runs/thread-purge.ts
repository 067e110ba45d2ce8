/**
 * Deleting a thread (kernel/runs/README.md, "Deleting a thread"). The deletion mark is set
 * first, in one store write: from then on the thread reads as missing and admits no run
 * (an admission racing the mark is either committed before it, and then cancelled here,
 * or refused). Then every active run is cancelled (interrupt semantics) and waited for,
 * and only once none is left is anything removed: the checkpoints (the thread's and its
 * children's) and the workspace through the executor, the runs' streams on the bridge,
 * and last the store rows (thread, runs, journal, reports) — the mark goes with them, so
 * the id can be created again, empty.
 *
 * A purge that fails (a store outage) or whose worker dies leaves the mark: the periodic
 * sweep (`resumePurges`, on any worker) finishes it later.
 */
import { KeelError } from "../errors.js";
import { ownedThread } from "./admission.js";
import { isTerminal, isoNow, type ManagerContext } from "./manager-context.js";
import type { RunRecord } from "./types.js";
import { settlesWithin } from "./settles-within.js";

/** How long `deleteThread` waits for the purge before answering that it goes on in the background. */
export const DELETE_WAIT_MS = 10_000;
/** How often the purge looks at the runs it cancelled, and how often it cancels again those still active. */
const POLL_MS = 50;
/** A cancel that changed nothing in this long (real time) is sent again: a control message may be lost between a claim and the owner's subscription. */
const RECANCEL_MS = 1_000;
/** Runs read per page when collecting a thread's run ids. */
const PAGE = 500;

export interface ThreadDeletion {
  /** True when everything was removed within the wait; false when the purge goes on in the background. */
  finished: boolean;
  /** Settles when the purge is over (never rejects; a failure is logged and left to the sweep). */
  done: Promise<void>;
}

export class ThreadPurger {
  /** Purges running on this worker, by thread: a second request joins the first. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: ManagerContext,
    /** Cancel one active run (the manager's cancellation, cause `thread_deleted`). */
    private readonly cancel: (run: RunRecord) => Promise<void>,
  ) {}

  /**
   * Mark the thread deleted (KEEL_ERR_THREAD_NOT_FOUND when it is missing, another user's,
   * or already being deleted), then purge it; resolves after the purge or after `waitMs`,
   * whichever comes first.
   */
  async delete(threadId: string, options: { user?: string; waitMs?: number } = {}): Promise<ThreadDeletion> {
    if (options.user !== undefined) await ownedThread(this.ctx.store, threadId, options.user);
    if (!(await this.ctx.store.markThreadDeleted(threadId, isoNow(this.ctx.clock)))) {
      throw new KeelError("KEEL_ERR_THREAD_NOT_FOUND", `thread \`${threadId}\` does not exist`);
    }
    const done = this.purge(threadId);
    const finished = await settlesWithin(done, options.waitMs ?? DELETE_WAIT_MS);
    return { finished, done };
  }

  /** Finish the purges of threads marked deleted that no purge on this worker is working on (the sweep). */
  async resumePurges(limit = 20): Promise<number> {
    const marked = (await this.ctx.store.deletedThreads?.(limit)) ?? [];
    const resumed = marked.filter((threadId) => !this.running.has(threadId));
    await Promise.all(resumed.map((threadId) => this.purge(threadId)));
    return resumed.length;
  }

  /** Purges still running on this worker (shutdown waits for none of them: the sweep finishes them). */
  get active(): number {
    return this.running.size;
  }

  private purge(threadId: string): Promise<void> {
    let purge = this.running.get(threadId);
    if (purge) return purge;
    purge = this.purgeOnce(threadId)
      .catch((error) => this.ctx.log(`thread ${threadId}: the purge failed; its deletion mark stays and the sweep finishes it`, error))
      .finally(() => this.running.delete(threadId));
    this.running.set(threadId, purge);
    return purge;
  }

  private async purgeOnce(threadId: string): Promise<void> {
    await this.endActiveRuns(threadId);
    const runIds = await this.runIdsOf(threadId);
    const checkpointThreads = [threadId, ...(await this.childCheckpointThreads(threadId, runIds))];
    await this.ctx.executor.purgeThread?.(threadId, { checkpointThreads });
    await this.ctx.bridge.deleteRuns?.(runIds);
    // Last: the rows and the mark go together, and only then can the id be created again.
    await this.ctx.store.deleteThread(threadId);
  }

  /**
   * Cancel every pending and running run and wait until none is left. No new run can be
   * admitted meanwhile (the mark); a pending run claimed between the read and its cancel is
   * found running on the next look and cancelled again. A run whose worker died ends when
   * the reaper finds its lease expired.
   */
  private async endActiveRuns(threadId: string): Promise<void> {
    const cancelled = new Set<string>();
    let resend = false;
    for (;;) {
      const active = await this.ctx.store.activeRuns(threadId);
      if (active.length === 0) return;
      for (const run of active) {
        const seen = `${run.runId}:${run.status}:${run.epoch}`;
        if (cancelled.has(seen) && !resend) continue;
        cancelled.add(seen);
        await this.cancel(run).catch((error) => this.ctx.log(`run ${run.runId}: cancelling it for its thread's deletion failed`, error));
      }
      // Nothing changed for a while: cancel again (a control message may have been lost).
      resend = !(await this.untilChanged(active));
    }
  }

  /** Poll until one of `runs` is no longer as it was read (true), or `RECANCEL_MS` passed (false). */
  private async untilChanged(runs: readonly RunRecord[]): Promise<boolean> {
    const since = Date.now();
    while (Date.now() - since < RECANCEL_MS) {
      await delay(POLL_MS);
      for (const run of runs) {
        const now = await this.ctx.store.getRun(run.runId);
        if (!now || isTerminal(now.status) || now.status !== run.status || now.epoch !== run.epoch) return true;
      }
    }
    return false;
  }

  private async runIdsOf(threadId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.ctx.store.listRuns(threadId, { limit: PAGE, offset });
      ids.push(...page.map((run) => run.runId));
      if (page.length < PAGE) return ids;
    }
  }

  /** The checkpoint threads of the runs' children (`<thread>/<agent path>`), from the agents named in their journals. */
  private async childCheckpointThreads(threadId: string, runIds: readonly string[]): Promise<string[]> {
    const agents = new Set<string>();
    for (const runId of runIds) for (const entry of await this.ctx.store.readJournal(runId)) if (entry.agent !== "lead") agents.add(entry.agent);
    return [...agents].map((agent) => `${threadId}/${agent}`);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
