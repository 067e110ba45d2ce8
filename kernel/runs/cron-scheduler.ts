/**
 * Fires crons (kernel/runs/README.md, "Crons"). Every `pollMs` (and on `tick()`), each
 * worker reads the crons whose next tick is due and claims each tick with the store's
 * compare-and-set (`advanceCron`: next tick ← the first one after now, only if it still is
 * the due one), so among many workers exactly one fires it. The winner admits an ordinary
 * run through the run manager — owned by the cron's creator, `dueAt` the tick, so the claim
 * queue starts it — on the cron's thread, or on a new thread for a stateless cron.
 *
 * Missed ticks: the next tick is always computed from now, so a cron whose ticks passed
 * while no worker ran (a server down for an hour under `* * * * *`) fires once when one is
 * back, not once per missed tick. The tick is claimed before the run is admitted: a worker
 * that dies between the two (a window of one store call) loses that one tick, never
 * doubles it.
 *
 * Metadata: each fire's run carries the request's metadata plus `cron_id`; a stateless
 * fire's new thread starts with that too. A host that stamps runs the way its routes do
 * (the gateway's LangGraph stamps: `graph_id`, `assistant_id`, the assistant's metadata)
 * passes `fireMetadata`, which gets the thread as it was before the fire.
 */
import { randomUUID } from "node:crypto";
import { isKeelError } from "../errors.js";
import { systemClock, type Clock } from "../loop/run-scope.js";
import { parseCronSchedule } from "./cron-schedule.js";
import type { CronRecord, CronStore } from "./cron-types.js";
import type { BackgroundLog } from "./run-output.js";
import type { CreateRunOptions, RunManager } from "./run-manager.js";
import type { RunRecord, RunStore, ThreadRecord } from "./types.js";

/** Default poll: crons tick at minute granularity, so once a second is well within a tick. */
export const CRON_POLL_MS = 1_000;
/** Crons fired per poll at most; the rest fire on the next poll. */
export const CRON_BATCH = 100;

export interface CronSchedulerOptions {
  crons: CronStore;
  runs: Pick<RunManager, "createOrReject" | "join" | "deleteThread" | "isShuttingDown">;
  /** Where a stateless cron's threads are created and a fire's thread is stamped (the run manager's store). */
  store: Pick<RunStore, "createThread" | "deleteThread" | "getThread" | "updateThread">;
  /** The fire's run metadata and the stamps merged into its thread; absent: the request's metadata plus `cron_id`, no stamps. */
  fireMetadata?: CronFireMetadata;
  clock?: Clock;
  pollMs?: number;
  batch?: number;
  log?: BackgroundLog;
  newThreadId?: () => string;
}

type Metadata = Record<string, unknown>;

/**
 * Stamps for one fire. `thread` is the fire's thread before the run (null: a stateless
 * fire's new thread), `metadata` the request's metadata plus `cron_id`. Answers the run's
 * metadata and the stamps for its thread: a new thread starts with them (under `metadata`),
 * an existing one gets them merged in once the run is admitted (an empty object: none).
 */
export type CronFireMetadata = (cron: CronRecord, thread: ThreadRecord | null, metadata: Metadata) => Promise<{ run: Metadata; thread: Metadata }>;

/** What one tick of one cron did. */
export type CronFire =
  | { cronId: string; tick: string; run: RunRecord }
  | { cronId: string; tick: string; skipped: string };

/**
 * Told of each run a fire admitted (e.g. the gateway, to send the cron's webhook once the
 * run ended). A promise it returns holds a stateless fire's thread deletion until it settles
 * (so the listener can read the thread's final values first).
 */
export type CronFireListener = (cron: CronRecord, run: RunRecord) => void | Promise<unknown>;

export class CronScheduler {
  private readonly listeners = new Set<CronFireListener>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<CronFire[]> | null = null;
  /** Stateless fires waiting for their run's end to delete its thread. */
  private readonly cleanups = new Set<Promise<void>>();
  private readonly clock: Clock;
  private readonly log: BackgroundLog;
  private readonly newThreadId: () => string;

  constructor(private readonly options: CronSchedulerOptions) {
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? ((message, error) => console.error(`[keel crons] ${message}`, error ?? ""));
    this.newThreadId = options.newThreadId ?? randomUUID;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? CRON_POLL_MS);
    this.timer.unref();
  }

  /** Calls `listener` with each run this worker's fires admit; returns the unsubscribe. A throwing listener is logged. */
  onFire(listener: CronFireListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops polling; runs already admitted go on. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Settles when every stateless fire's thread deletion that was started has finished (tests). */
  async settled(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.allSettled([...this.cleanups]);
  }

  /**
   * One pass: claim and fire every due cron (one pass at a time: a call during a pass
   * joins it). Never rejects; a failed store read is logged and the next poll retries.
   */
  tick(): Promise<CronFire[]> {
    this.ticking ??= this.pass().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async pass(): Promise<CronFire[]> {
    const nowMs = this.clock.now();
    const now = new Date(nowMs).toISOString();
    let due: CronRecord[];
    try {
      due = await this.options.crons.dueCrons(now, this.options.batch ?? CRON_BATCH);
    } catch (error) {
      this.log("reading the due crons failed; the next poll retries", error);
      return [];
    }
    const fires: CronFire[] = [];
    for (const cron of due) {
      // A worker shutting down claims no tick (it could not admit the run): another worker fires it.
      if (this.options.runs.isShuttingDown) break;
      const fire = await this.claimAndFire(cron, nowMs, now);
      if (fire) fires.push(fire);
    }
    return fires;
  }

  private async claimAndFire(cron: CronRecord, nowMs: number, now: string): Promise<CronFire | null> {
    const tick = cron.nextRunAt!;
    let next: string | null;
    try {
      next = parseCronSchedule(cron.schedule, cron.timezone).nextAfter(nowMs, cron.endTime);
    } catch (error) {
      // Validated at create and update; a row written by hand stops here instead of firing.
      next = null;
      this.log(`cron ${cron.cronId}: its schedule no longer parses; it will not fire again`, error);
    }
    try {
      if (!(await this.options.crons.advanceCron(cron.cronId, tick, next, now))) return null;
    } catch (error) {
      this.log(`cron ${cron.cronId}: claiming the tick ${tick} failed; the next poll retries`, error);
      return null;
    }
    return this.fire(cron, tick);
  }

  private async fire(cron: CronRecord, tick: string): Promise<CronFire> {
    const stateless = cron.threadId === null;
    const threadId = cron.threadId ?? this.newThreadId();
    const metadata = { ...(cron.request.metadata ?? {}), cron_id: cron.cronId };
    const options: CreateRunOptions = { user: cron.owner, strategy: cron.strategy, dueAt: tick };
    try {
      const before = stateless ? null : await this.options.store.getThread(threadId);
      const stamps = this.options.fireMetadata ? await this.options.fireMetadata(cron, before, metadata) : { run: metadata, thread: {} };
      const request = { ...cron.request, metadata: stamps.run };
      if (stateless) {
        const now = new Date(this.clock.now()).toISOString();
        await this.options.store.createThread({ threadId, owner: cron.owner, status: "idle", metadata: { ...stamps.thread, ...metadata }, createdAt: now, updatedAt: now });
      }
      const run = await this.options.runs.createOrReject(threadId, request, options);
      if (before) await this.stampThread(threadId, stamps.thread).catch((error: unknown) => this.log(`cron ${cron.cronId}: stamping thread ${threadId} for run ${run.runId} failed; the run goes on`, error));
      const told = this.tell(cron, run);
      if (stateless && cron.onRunCompleted !== "keep") this.deleteAfter(run, cron.owner, told);
      return { cronId: cron.cronId, tick, run };
    } catch (error) {
      const code = isKeelError(error) ? error.code : "";
      if (stateless) await this.options.store.deleteThread(threadId).catch(() => undefined);
      if (!stateless && (code === "KEEL_ERR_THREAD_NOT_FOUND" || code === "KEEL_ERR_STORE_THREAD_DELETED" || code === "KEEL_ERR_STORE_THREAD_NOT_FOUND")) {
        // The thread is gone (deleted): so is its cron, as on LangGraph's server.
        await this.options.crons.deleteCron(cron.cronId).catch(() => undefined);
        this.log(`cron ${cron.cronId}: thread ${threadId} no longer exists; the cron is deleted`);
        return { cronId: cron.cronId, tick, skipped: "thread_deleted" };
      }
      this.log(`cron ${cron.cronId}: the run of tick ${tick} was not admitted (${code || "error"}); the tick is skipped`, error);
      return { cronId: cron.cronId, tick, skipped: code || "error" };
    }
  }

  /** Merge the stamps into the fire's existing thread (as `PATCH` merges); a thread gone meanwhile is left alone. */
  private async stampThread(threadId: string, stamps: Metadata): Promise<void> {
    if (Object.keys(stamps).length === 0) return;
    const current = await this.options.store.getThread(threadId);
    if (!current || Object.entries(stamps).every(([key, value]) => current.metadata[key] === value)) return;
    await this.options.store.updateThread(threadId, { metadata: { ...current.metadata, ...stamps } }, new Date(this.clock.now()).toISOString());
  }

  private tell(cron: CronRecord, run: RunRecord): Promise<unknown> {
    const holds: unknown[] = [];
    for (const listener of this.listeners) {
      try {
        holds.push(listener(cron, run));
      } catch (error) {
        this.log(`cron ${cron.cronId}: a fire listener failed for run ${run.runId}`, error);
      }
    }
    return Promise.allSettled(holds);
  }

  /** `on_run_completed: "delete"`: the fire's thread (with its run) is deleted once the run ended. */
  private deleteAfter(run: RunRecord, user: string, hold: Promise<unknown>): void {
    const cleanup = this.options.runs
      .join(run.runId)
      .then(() => hold)
      .then(() => this.options.runs.deleteThread(run.threadId, { user }))
      .then((deletion) => deletion.done)
      .then(
        () => undefined,
        (error: unknown) => this.log(`cron run ${run.runId}: deleting its thread ${run.threadId} after the run failed; the thread is kept`, error),
      )
      .finally(() => this.cleanups.delete(cleanup));
    this.cleanups.add(cleanup);
  }
}
