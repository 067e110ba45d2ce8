/**
 * Where one run's events and journal entries go while it executes: events are published
 * to the stream bridge strictly in emission order (one publish at a time), journal
 * entries are numbered in arrival order and written to the store in batches. Once the
 * run's lease is lost the output is silenced: the reaper owns the stream from then on.
 */
import type { JournalEntry, RunStore, StreamBridge, StreamEvent } from "./types.js";

export type BackgroundLog = (message: string, error?: unknown) => void;

export class RunOutput {
  /** Every event this run published, in order (the run report's `events`). */
  readonly published: StreamEvent[] = [];
  private publishing: Promise<void> = Promise.resolve();
  private buffer: JournalEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private journalSeq = 0;
  private silenced = false;

  constructor(
    private readonly runId: string,
    private readonly bridge: StreamBridge,
    private readonly store: RunStore,
    private readonly journalBatchSize: number,
    private readonly log: BackgroundLog,
  ) {}

  emit(event: string, data: unknown): void {
    if (this.silenced) return;
    this.publishing = this.publishing.then(async () => {
      if (this.silenced) return;
      try {
        this.published.push(await this.bridge.publish(this.runId, event, data));
      } catch (error) {
        this.log(`run ${this.runId}: publishing \`${event}\` failed`, error);
      }
    });
  }

  journal(entry: JournalEntry): void {
    this.buffer.push({ ...entry, runId: this.runId, seq: ++this.journalSeq });
    if (this.buffer.length >= this.journalBatchSize) void this.flushJournal().catch((error) => this.log(`run ${this.runId}: journal flush failed`, error));
  }

  /** Resolves once every event emitted so far is published (or failed to publish). */
  drainEvents(): Promise<void> {
    return this.publishing;
  }

  /**
   * Write the buffered entries. Flushes are serialized, so batches land in order; a failed
   * batch goes back to the front of the buffer and the error is thrown to the caller.
   */
  flushJournal(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.buffer.length === 0) return;
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.store.appendJournal(this.runId, batch);
      } catch (error) {
        this.buffer = [...batch, ...this.buffer];
        throw error;
      }
    });
    // The chain continues after a failure; the caller of this flush sees the error.
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Stop publishing: the run lost its lease, and its stream belongs to whoever won. */
  silence(): void {
    this.silenced = true;
  }
}
