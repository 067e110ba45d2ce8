import type { RunStore } from "../../kernel/runs/types.js";

/**
 * A RunStore usable at once whose every call waits for the real store (connected and
 * migrated) and then forwards. Port factories are called synchronously by the kernel,
 * so this is what the plugin's `store` port returns; a server that can await should
 * call `createSqlRunStore` instead and fail fast at start.
 */
export function deferredRunStore(ready: Promise<RunStore>): RunStore {
  // Observed here so a failure surfaces through the calls, not as an unhandled rejection.
  ready.catch(() => undefined);
  const forward =
    <K extends Exclude<keyof RunStore, "init" | "close" | "countRuns" | "recentRuns" | "ping" | "withdrawPending" | "deleteFinishedRun" | "deletedThreads" | "endedRuns" | "setThreadExpiry" | "getThreadExpiry" | "expiredThreads" | "forgetThreadExpiry">>(method: K) =>
    async (...args: Parameters<RunStore[K]>): Promise<Awaited<ReturnType<RunStore[K]>>> => {
      const store = await ready;
      return (store[method] as (...a: Parameters<RunStore[K]>) => Promise<Awaited<ReturnType<RunStore[K]>>>)(...args);
    };
  return {
    init: async () => {
      await (await ready).init();
    },
    /** Closes the store once it is ready; nothing to close when opening it failed. */
    close: async () => {
      const store = await ready.catch(() => undefined);
      await store?.close();
    },
    createThread: forward("createThread"),
    getThread: forward("getThread"),
    updateThread: forward("updateThread"),
    searchThreads: forward("searchThreads"),
    countThreads: forward("countThreads"),
    deleteThread: forward("deleteThread"),
    markThreadDeleted: forward("markThreadDeleted"),
    deletedThreads: async (limit) => {
      const store = await ready;
      return store.deletedThreads ? store.deletedThreads(limit) : [];
    },
    endedRuns: async (after, until, limit) => {
      const store = await ready;
      return store.endedRuns ? store.endedRuns(after, until, limit) : [];
    },
    admitRun: forward("admitRun"),
    getRun: forward("getRun"),
    listRuns: forward("listRuns"),
    recentRuns: async (filter) => {
      const store = await ready;
      if (store.recentRuns) return store.recentRuns(filter);
      throw new Error("this run store cannot list recent runs");
    },
    activeRuns: forward("activeRuns"),
    claimNext: forward("claimNext"),
    claimDue: forward("claimDue"),
    heartbeat: forward("heartbeat"),
    completeRun: forward("completeRun"),
    cancelPending: forward("cancelPending"),
    withdrawPending: async (runId) => {
      const store = await ready;
      return store.withdrawPending ? store.withdrawPending(runId) : false;
    },
    deleteFinishedRun: async (runId) => {
      const store = await ready;
      return store.deleteFinishedRun ? store.deleteFinishedRun(runId) : false;
    },
    ping: async () => {
      await (await ready).ping?.();
    },
    countRuns: async (status) => {
      const store = await ready;
      return store.countRuns ? store.countRuns(status) : Number.NaN;
    },
    expiredRuns: forward("expiredRuns"),
    expireRun: forward("expireRun"),
    appendJournal: forward("appendJournal"),
    readJournal: forward("readJournal"),
    saveReport: forward("saveReport"),
    getReport: forward("getReport"),
    // Thread expiry (optional on a RunStore; store-sql's has it): the retention sweep's entries.
    setThreadExpiry: async (expiry) => (await ready).setThreadExpiry?.(expiry),
    getThreadExpiry: async (threadId) => (await ready).getThreadExpiry?.(threadId) ?? null,
    expiredThreads: async (now, limit) => (await ready).expiredThreads?.(now, limit) ?? [],
    forgetThreadExpiry: async (threadId) => (await ready).forgetThreadExpiry?.(threadId),
  };
}
