/**
 * A step's pending writes ride with its checkpoint. LangGraph calls `putWrites` when a
 * task finishes and, once every task of the step did, `put` for the step's checkpoint —
 * without waiting for the writes in between (it waits for both before the next step under
 * `durability: "sync"`). So the saver holds each `putWrites` until the end of the
 * macrotask — or, while a `put` of the same thread is still being written (LangGraph
 * chains the next `put` after it: the first step's writes arrive while the input
 * checkpoint is in flight), until the macrotask after that `put` settles (at most four
 * such `put`s in a row): a `put` whose
 * parent is the writes' checkpoint takes them into its own transaction (one commit a step
 * instead of two); writes no `put` took by then (a failed or interrupted step,
 * `updateState`) are written alone, each as before. A `putWrites` resolves once its rows
 * are committed, either way.
 */
import type { LeaseFence, PendingWritesWrite } from "./sql-executor.js";

interface Held {
  fence: LeaseFence | undefined;
  /** The write's rows, serialized (undefined: nothing to write); a rejection fails this `putWrites` alone. */
  prepared: Promise<PendingWritesWrite | undefined>;
  resolve(): void;
  reject(error: unknown): void;
}

/** Writes a `put` took: it settles them with its own outcome (all of them, or those `writes()` returned). */
export interface Riding {
  /** The writes to commit with the put (a write whose serialization failed is settled with its error and left out). */
  writes(): Promise<PendingWritesWrite[]>;
  settle(error?: unknown): void;
}

/** How many in-flight puts of its thread a held write waits out before it is written alone. */
const MAX_WAITS = 4;
const keyOf = (threadId: string, ns: string, checkpointId: string) => JSON.stringify([threadId, ns, checkpointId]);
const sameFence = (a: LeaseFence | undefined, b: LeaseFence | undefined) => a?.runId === b?.runId && a?.epoch === b?.epoch;

export class ParkedWrites {
  private readonly held = new Map<string, Held[]>();

  /**
   * `writeAlone` writes one `putWrites` in its own transaction; `putInFlight` gives the
   * `put` of (thread, namespace) being written now, if any.
   */
  constructor(
    private readonly writeAlone: (write: PendingWritesWrite) => void | Promise<void>,
    private readonly putInFlight: (threadId: string, ns: string) => Promise<unknown> | undefined,
  ) {}

  /**
   * Holds a `putWrites` on (thread, namespace, checkpoint) until a `put` takes it or the
   * macrotask ends; resolves when it is committed. Called synchronously by `putWrites`, so
   * a `put` called after it finds it even while its rows are still being serialized.
   */
  park(threadId: string, ns: string, checkpointId: string, fence: LeaseFence | undefined, prepared: Promise<PendingWritesWrite | undefined>): Promise<void> {
    const key = keyOf(threadId, ns, checkpointId);
    let list = this.held.get(key);
    if (list === undefined) {
      list = [];
      this.held.set(key, list);
      const mine = list;
      let waits = 0;
      const later = () =>
        setImmediate(() => {
          // A few puts in a row at most (a thread written continuously must not hold writes for ever).
          const inFlight = this.held.get(key) === mine && waits < MAX_WAITS ? this.putInFlight(threadId, ns) : undefined;
          if (inFlight) void inFlight.then(later, later);
          else void this.flush(key, mine);
          waits += 1;
        });
      later();
    }
    const parked = list;
    prepared.catch(() => undefined);
    return new Promise<void>((resolve, reject) => parked.push({ fence, prepared, resolve, reject }));
  }

  /** The writes held on (thread, namespace, checkpoint) under the same fence, now owned by the caller's transaction. */
  take(threadId: string, ns: string, checkpointId: string, fence: LeaseFence | undefined): Riding | undefined {
    const key = keyOf(threadId, ns, checkpointId);
    const list = this.held.get(key);
    if (list === undefined || !list.every((h) => sameFence(h.fence, fence))) return undefined;
    this.held.delete(key);
    const riding: Held[] = [];
    let collected = false;
    return {
      writes: async () => {
        collected = true;
        const writes: PendingWritesWrite[] = [];
        for (const h of list) {
          try {
            const write = await h.prepared;
            if (write === undefined) h.resolve();
            else (writes.push(write), riding.push(h));
          } catch (error) {
            h.reject(error);
          }
        }
        return writes;
      },
      settle: (error) => {
        for (const h of collected ? riding : list) if (error === undefined) h.resolve();
        else h.reject(error);
      },
    };
  }

  /** Writes everything held now (before a thread operation or closing). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.held].map(([key, list]) => this.flush(key, list)));
  }

  /** Writes a held list alone, in order, each settling its own promise; nothing if a `put` took it. */
  private async flush(key: string, list: Held[]): Promise<void> {
    if (this.held.get(key) !== list) return;
    this.held.delete(key);
    for (const h of list) {
      try {
        const write = await h.prepared;
        if (write !== undefined) await this.writeAlone(write);
        h.resolve();
      } catch (error) {
        h.reject(error);
      }
    }
  }
}
