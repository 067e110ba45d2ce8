/**
 * Thread TTL and the retention sweep (kernel/runs/README.md, "Thread TTL and the retention
 * sweep"), on the memory store, SQLite and PostgreSQL (KEEL_TEST_PG_URL; a scratch database;
 * skipped locally with the reason printed, a failure under CI=true). An injected clock
 * moves time; the sweep is called directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { DEFAULT_THREAD_TTL_MINUTES, ThreadRetention } from "../../kernel/runs/thread-retention.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import { PG_URL, postgresUnavailable } from "../e2e/services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";
import { ScriptedExecutor } from "../plugins/gateway/harness.js";

const pgReason = await postgresUnavailable();
if (pgReason) console.warn(`thread-retention: PostgreSQL cases skipped: ${pgReason}`);

const MINUTE = 60_000;

interface Backend {
  name: string;
  open(): Promise<{ store: RunStore; close(): Promise<void> }>;
}

const backends: Backend[] = [
  { name: "memory", open: async () => ({ store: new MemoryRunStore(), close: async () => undefined }) },
  {
    name: "SQLite",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), "keel-retention-"));
      const store = await createSqlRunStore(`sqlite:${join(dir, "keel.db")}`);
      return { store, close: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
  ...(pgReason
    ? []
    : [
        {
          name: "PostgreSQL",
          open: async () => {
            const scratch = await scratchDatabase(PG_URL, "keel_retention");
            const store = await createSqlRunStore(scratch.url);
            return { store, close: async () => (await store.close(), await scratch.drop()) };
          },
        },
      ]),
];

for (const backend of backends) {
  describe(`thread retention on ${backend.name}`, () => {
    let store: RunStore;
    let close: () => Promise<void>;
    let runs: RunManager;
    let executor: ScriptedExecutor;
    let bridge: MemoryStreamBridge;
    let now = Date.parse("2030-01-01T00:00:00.000Z");
    const clock = () => now;
    const iso = () => new Date(now).toISOString();
    let retention: ThreadRetention;

    beforeAll(async () => {
      ({ store, close } = await backend.open());
      bridge = new MemoryStreamBridge();
      executor = new ScriptedExecutor();
      runs = new RunManager({ store, bridge, executor, log: () => undefined, joinRecheckMs: 50 });
      runs.start();
      retention = new ThreadRetention({ store, deleteThread: (threadId, options) => runs.deleteThread(threadId, options), clock }, { defaultTtlMinutes: 60, sweepMinutes: 5 });
    });
    afterAll(async () => {
      await runs.shutdown();
      await bridge.close();
      await close();
    });

    const newThread = async (threadId: string, ttl?: number | null) => {
      await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: iso(), updatedAt: iso() });
      await retention.trackThread(threadId, ttl);
    };

    it("keeps an expiry per thread: the default TTL, the thread's own, or none", async () => {
      expect(retention.supported).toBe(true);
      await newThread(`${backend.name}-default`);
      await newThread(`${backend.name}-own`, 5);
      await newThread(`${backend.name}-never`, null);
      expect(await store.getThreadExpiry!(`${backend.name}-default`)).toEqual({ threadId: `${backend.name}-default`, ttlMinutes: 60, expiresAt: new Date(now + 60 * MINUTE).toISOString() });
      expect(await store.getThreadExpiry!(`${backend.name}-own`)).toEqual({ threadId: `${backend.name}-own`, ttlMinutes: 5, expiresAt: new Date(now + 5 * MINUTE).toISOString() });
      expect(await store.getThreadExpiry!(`${backend.name}-never`)).toBeNull();
      expect(DEFAULT_THREAD_TTL_MINUTES).toBe(43_200);
    });

    it("purges an expired thread with its runs, journal, report, stream events, checkpoints and workspace; leaves the others", async () => {
      const threadId = `${backend.name}-expiring`;
      await newThread(threadId, 10);
      const run = await runs.createOrReject(threadId, { assistantId: "lead", input: { events: 2 } }, { user: "alice" });
      await runs.join(run.runId);
      expect((await store.readJournal(run.runId)).length).toBeGreaterThan(0);
      expect(await store.getReport(run.runId)).not.toBeNull();
      expect((await bridge.read(run.runId)).length).toBeGreaterThan(0);

      now += 9 * MINUTE;
      // The 5-minute thread of the first test is due; this one (10 minutes) is not yet.
      expect((await retention.sweepOnce()).purged).toEqual([`${backend.name}-own`]);
      expect(await store.getThread(threadId)).not.toBeNull();

      now += 2 * MINUTE;
      const swept = await retention.sweepOnce();
      expect(swept.purged).toEqual([threadId]);
      expect(await store.getThread(threadId)).toBeNull();
      expect(await store.getRun(run.runId)).toBeNull();
      expect(await store.readJournal(run.runId)).toEqual([]);
      expect(await store.getReport(run.runId)).toBeNull();
      expect(await bridge.read(run.runId)).toEqual([]);
      expect(executor.purged.map((p) => p.threadId)).toContain(threadId);
      expect(await store.getThreadExpiry!(threadId)).toBeNull();
      expect(await store.getThread(`${backend.name}-default`)).not.toBeNull();
      expect(await store.getThread(`${backend.name}-never`)).not.toBeNull();
    });

    it("activity pushes the expiry; a thread with a running run is not purged, its expiry pushed instead", async () => {
      const threadId = `${backend.name}-busy`;
      await newThread(threadId, 10);
      now += 8 * MINUTE;
      await retention.touch(threadId);
      expect((await store.getThreadExpiry!(threadId))?.expiresAt).toBe(new Date(now + 10 * MINUTE).toISOString());

      const run = await runs.createOrReject(threadId, { assistantId: "lead", input: "gate" }, { user: "alice" });
      for (let i = 0; i < 200 && !executor.isWaiting(run.runId); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      now += 11 * MINUTE;
      const swept = await retention.sweepOnce();
      expect(swept.deferred).toEqual([threadId]);
      expect(await store.getThread(threadId)).not.toBeNull();
      expect((await store.getThreadExpiry!(threadId))?.expiresAt).toBe(new Date(now + 10 * MINUTE).toISOString());
      executor.release(run.runId);
      expect((await runs.join(run.runId)).status).toBe("success");
    });

    it("forgets the entry of a thread its owner deleted, and re-tracks a thread created again with the same id", async () => {
      const threadId = `${backend.name}-deleted`;
      await newThread(threadId, 1);
      await runs.deleteThread(threadId, { user: "alice" }).then((d) => d.done);
      now += 2 * MINUTE;
      const swept = await retention.sweepOnce();
      expect(swept.purged).not.toContain(threadId);
      expect(await store.getThreadExpiry!(threadId)).toBeNull();

      await newThread(threadId, 30);
      expect((await store.getThreadExpiry!(threadId))?.ttlMinutes).toBe(30);
    });
  });
}

describe("ThreadRetention options", () => {
  it("refuses a TTL or sweep interval that is not a positive number of minutes", () => {
    const deps = { store: new MemoryRunStore(), deleteThread: async () => ({ finished: true, done: Promise.resolve() }) };
    for (const options of [{ defaultTtlMinutes: 0 }, { defaultTtlMinutes: -1 }, { sweepMinutes: 0 }, { defaultTtlMinutes: Number.NaN }]) {
      expect(() => new ThreadRetention(deps, options)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    }
    expect(new ThreadRetention(deps, { defaultTtlMinutes: null }).options).toEqual({ defaultTtlMinutes: null, sweepMinutes: 60 });
  });
});
