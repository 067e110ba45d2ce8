/**
 * The newest checkpoint the saver wrote per (thread, namespace): what its next step is
 * diffed against (`channel-diff.ts`). Values are kept by reference (LangGraph's reducers
 * return new values, and a checkpointed value is not mutated afterwards), bounded by a
 * number of threads and by their serialized bytes; the least recently written goes first.
 */
import type { ChannelValues } from "./rebuild.js";

export interface Head {
  checkpointId: string;
  snapshotId: string;
  depth: number;
  values: ChannelValues;
  /** Serialized bytes per channel (a splice adds its items' bytes: an upper bound). */
  channelBytes: Record<string, number>;
  /** Sum of `channelBytes`: what the head counts against the cache's bytes. */
  bytes: number;
}

export const headKey = (threadId: string, ns: string) => JSON.stringify([threadId, ns]);

export class HeadCache {
  private readonly heads = new Map<string, Head>();
  /** Bytes of the cached heads (sum of their `bytes`). */
  private bytes = 0;

  constructor(
    private readonly maxThreads: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): Head | undefined {
    return this.heads.get(key);
  }

  /** Caches a thread's head, newest last; the least recently written go while over either bound. */
  remember(key: string, head: Head): void {
    this.drop(key);
    if (this.maxThreads === 0 || head.bytes > this.maxBytes) return;
    this.heads.set(key, head);
    this.bytes += head.bytes;
    while (this.heads.size > this.maxThreads || this.bytes > this.maxBytes) this.drop(this.heads.keys().next().value!);
  }

  drop(key: string): void {
    const head = this.heads.get(key);
    if (head === undefined) return;
    this.heads.delete(key);
    this.bytes -= head.bytes;
  }

  /** Drops every namespace of the thread. */
  forgetThread(threadId: string): void {
    for (const key of [...this.heads.keys()]) if ((JSON.parse(key) as string[])[0] === threadId) this.drop(key);
  }

  clear(): void {
    this.heads.clear();
    this.bytes = 0;
  }
}
