/**
 * Where one run's events and journal entries go while it executes: events are published
 * to the stream bridge strictly in emission order — one publish at a time, or all at
 * once to a bridge that keeps call order (`orderedPublish`, e.g. Redis, which batches
 * them) — each under the run's lease epoch; journal
 * entries are numbered in arrival order and written to the store in batches. Once the
 * run's lease is lost the output is silenced: the reaper owns the stream from then on.
 *
 * Writing the journal is never fatal to the run: a failed batch stays buffered and is
 * retried with the next flush, and what could not be written by the end is reported
 * (`journalIncomplete`), so the run keeps its real outcome and finalizes at once.
 */
import type { JournalGap } from "../../contracts/run-report/v1.js";
import { isKeelError } from "../errors.js";
import { fencingDisabled, type RunFence } from "../ports/fence.js";
import type { JournalEntry, JournalFence, PublishOptions, RunStore, StreamBridge, StreamEvent } from "./types.js";

/** The lease the output writes under: journal writes carry it (the store checks it) and stop once it is lost. */
export interface OutputLease {
  fence: RunFence;
  owner: string;
  /** A write was refused for the lease (`KEEL_ERR_LEASE_FENCED`): the run has lost it. */
  refused(why: string): void;
}

export type { JournalGap };

export type BackgroundLog = (message: string, error?: unknown) => void;


export class RunOutput {
  /** Every event this run published, in order (the run report's `events`). */
  readonly published: StreamEvent[] = [];
  private publishing: Promise<void> = Promise.resolve();
  private buffer: JournalEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private journalSeq = 0;
  private silenced = false;
  private failedWrites = 0;
  private firstError: string | null = null;
  /** Buffer size that triggers the next batch write; after a failure, one more batch must accumulate first. */
  private flushAt: number;
  private readonly publishOptions: PublishOptions;

  constructor(
    private readonly runId: string,
    private readonly bridge: StreamBridge,
    private readonly store: RunStore,
    private readonly journalBatchSize: number,
    private readonly log: BackgroundLog,
    /** The run's lease epoch, recorded on every event it publishes and every journal entry. */
    private readonly epoch?: number,
    private readonly lease?: OutputLease,
  ) {
    this.flushAt = journalBatchSize;
    this.publishOptions = epoch === undefined ? {} : { epoch };
  }

  emit(event: string, data: unknown): void {
    if (this.silenced) return;
    if (this.bridge.orderedPublish) {
      // Handed over now (the bridge keeps the order); only the results are collected in order.
      const settled = this.bridge.publish(this.runId, event, data, this.publishOptions).then(
        (published) => ({ published }),
        (error: unknown) => ({ error }),
      );
      this.publishing = this.publishing.then(async () => {
        const result = await settled;
        if ("published" in result) this.published.push(result.published);
        else this.log(`run ${this.runId}: publishing \`${event}\` failed`, result.error);
      });
      return;
    }
    this.publishing = this.publishing.then(async () => {
      if (this.silenced) return;
      try {
        this.published.push(await this.bridge.publish(this.runId, event, data, this.publishOptions));
      } catch (error) {
        this.log(`run ${this.runId}: publishing \`${event}\` failed`, error);
      }
    });
  }

  journal(entry: JournalEntry): void {
    this.buffer.push({ ...entry, runId: this.runId, seq: ++this.journalSeq, ...(this.epoch === undefined ? {} : { epoch: this.epoch }) });
    if (this.buffer.length >= this.flushAt) void this.flushJournal();
  }

  /** Resolves once every event emitted so far is published (or failed to publish). */
  drainEvents(): Promise<void> {
    return this.publishing;
  }

  /**
   * Write the buffered entries; resolves true when everything recorded so far is in the
   * store. Never rejects: flushes are serialized, so batches land in order, and a failed
   * batch goes back to the front of the buffer (the next flush retries it) and is counted
   * for `journalGap()`. A write refused for the lease (`KEEL_ERR_LEASE_FENCED`, or the
   * fence no longer held locally) is not a journal failure: the run lost its lease, the
   * batch is dropped (this worker may write nothing more) and the lease is given up.
   */
  flushJournal(): Promise<boolean> {
    const run = this.flushing.then(async () => {
      if (this.buffer.length === 0) return true;
      if (this.lease && !this.lease.fence.held) {
        this.buffer = [];
        return false;
      }
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.store.appendJournal(this.runId, batch, ...this.journalFence());
        this.flushAt = this.journalBatchSize;
        return this.buffer.length === 0;
      } catch (error) {
        if (this.lease && isKeelError(error) && error.code === "KEEL_ERR_LEASE_FENCED") {
          this.buffer = [];
          this.lease.refused(error.message);
          return false;
        }
        this.buffer = [...batch, ...this.buffer];
        this.failedWrites += 1;
        this.firstError ??= error instanceof Error ? error.message : String(error);
        this.flushAt = this.buffer.length + this.journalBatchSize;
        this.log(`run ${this.runId}: writing ${batch.length} journal entries failed (kept for the next write; the run goes on)`, error);
        return false;
      }
    });
    this.flushing = run.then(() => undefined);
    return run;
  }

  private journalFence(): [JournalFence] | [] {
    if (!this.lease || this.epoch === undefined || fencingDisabled()) return [];
    return [{ owner: this.lease.owner, epoch: this.epoch, now: this.lease.fence.now?.() ?? Date.now() }];
  }

  /** What the store's journal lacks now (entries still buffered after failed writes), or null. */
  journalGap(): JournalGap | null {
    if (this.failedWrites === 0 || this.buffer.length === 0) return null;
    return { failedWrites: this.failedWrites, unwrittenEntries: this.buffer.length, firstError: this.firstError ?? "unknown error" };
  }

  /** Stop publishing: the run lost its lease, and its stream belongs to whoever won. */
  silence(): void {
    this.silenced = true;
  }
}
