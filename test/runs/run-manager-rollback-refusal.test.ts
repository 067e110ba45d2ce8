import { describe, expect, it } from "vitest";
import { isKeelError } from "../../kernel/errors.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import { managedSetups, request, storeWith, until } from "./run-manager-harness.js";
import { PG_URL, postgresUnavailable } from "../e2e/services.js";

const pgSkip = await postgresUnavailable(PG_URL);
if (pgSkip !== null) console.warn(`skipping the PostgreSQL case of the rollback refusal test: ${pgSkip}`);

const { started, managers } = managedSetups();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isKeelError(error)) return error.code;
    throw error;
  }
  throw new Error("expected a KeelError, but the call succeeded");
}

/**
 * Refusals leave nothing: a `rollback` admission refused with 409
 * (KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE) leaves no run record, also when the run that cannot
 * be undone became active between the admission's check and its own insert (the new run
 * was already persisted then, and is withdrawn: deleted, never shown as a run).
 */
describe.each([
  ["memory", (): Promise<RunStore> => Promise.resolve(new MemoryRunStore())],
  ["SQLite", (): Promise<RunStore> => createSqlRunStore("sqlite::memory:")],
  ...(pgSkip === null ? [["PostgreSQL", (): Promise<RunStore> => createSqlRunStore(PG_URL)] as const] : []),
])("RunManager rollback refusal on the %s store", (_name, makeStore) => {
  it("a 409 for a run that became active meanwhile and cannot be undone leaves no run record", async () => {
    const store = await makeStore();
    // Unique per test run: the PostgreSQL database is shared.
    const thread = `thread-r-${process.pid}-${Date.now()}`;
    const user = `user-${thread}`;
    let ids = 0;
    const s = await started({ store, newRunId: () => `${thread}-run-${++ids}` });
    s.executor.rollback = "unavailable";
    const at = new Date(s.clock.now()).toISOString();
    await store.createThread({ threadId: thread, owner: user, status: "idle", metadata: {}, createdAt: at, updatedAt: at });
    const first = await s.manager.createOrReject(thread, request(), { user });
    await until(() => s.executor.calls.length === 1, "the first run to start");
    await until(async () => (await store.readJournal(first.runId)).some((e) => e.name === "rollback_point"), "its rollback point to be recorded");

    // Worker B's pre-admission check sees the thread as it was before `first` was admitted
    // (the race); its own admission then finds `first` active, whose rollback is unavailable.
    let snapshots = 0;
    const racing = storeWith(store, { activeRuns: async (threadId: string) => (snapshots++ === 0 ? [] : store.activeRuns(threadId)) });
    const other = s.worker({ store: racing });
    managers.push(other);
    expect(await codeOf(other.createOrReject(thread, request("redo"), { user, strategy: "rollback" }))).toBe("KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE");

    expect((await store.listRuns(thread, { limit: 10, offset: 0 })).map((r) => r.runId)).toEqual([first.runId]);
    // The refused run was persisted by the admission, then withdrawn: it is gone, not cancelled.
    expect(await store.getRun(`${thread}-run-2`)).toBeNull();
    expect((await store.getRun(first.runId))!.status).toBe("running");
    expect(s.executor.calls[0]!.io.signal.aborted).toBe(false);
    await store.close();
  });
});
