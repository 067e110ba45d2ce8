/**
 * Per-key async mutual exclusion: a promise chain per key. Used per (thread, path) so the
 * hash check and the write of one edit cannot interleave with another edit of that path.
 * The map only holds keys that have a holder or waiters.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Run `fn` once every earlier holder of `key` has finished (in arrival order).
   *
   * @example
   * await locks.run("thread-1\0report.md", () => checkThenWrite());
   */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => held);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys currently held or awaited (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
