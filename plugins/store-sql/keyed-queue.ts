/**
 * Tasks with the same key run one after the other, in call order; tasks with other keys
 * do not wait. The store queues its PostgreSQL admissions per thread with it: admissions
 * of one thread serialize on the thread's row lock anyway, and each waiting there holds a
 * pooled connection — a burst on one thread (200 creations at once) would hold them all,
 * and the worker's heartbeats, claims and reads would queue behind it until leases expire.
 * Queued here, a burst holds one connection per thread and worker.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
