/**
 * `RunStore.deleteFinishedRun` (the API's `DELETE /threads/:tid/runs/:rid`) on every store:
 * memory, SQLite, and PostgreSQL (KEEL_TEST_PG_URL; a scratch database; skipped with a
 * printed reason when unreachable locally, a failure under CI=true).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import type { RunRecord, RunStore } from "../../kernel/runs/types.js";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import { postgresUnavailable } from "../e2e/services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

function describeDeleteFinishedRun(name: string, open: () => Promise<{ store: RunStore; dispose: () => Promise<void> }>): void {
  describe(`deleteFinishedRun: ${name}`, () => {
    it("removes a finished run with its journal and report, leaves its thread's other runs, refuses active runs", async () => {
      const { store, dispose } = await open();
      try {
        const threadId = randomUUID();
        await store.createThread({ threadId, owner: "alice", status: "idle", metadata: {}, createdAt: iso(T0), updatedAt: iso(T0) });
        const run = (createdAt: number): RunRecord => ({
          runId: randomUUID(),
          threadId,
          assistantId: "lead",
          status: "pending",
          multitaskStrategy: "enqueue",
          epoch: 0,
          createdAt: iso(createdAt),
          updatedAt: iso(createdAt),
          user: "alice",
          request: { assistantId: "lead", input: "hi" },
        });
        const first = await store.admitRun(run(T0));
        const second = await store.admitRun(run(T0 + 1));
        if (!first.ok || !second.ok) throw new Error("admission refused");
        const claimed = await store.claimNext(threadId, "worker", 30_000, T0 + 2);
        expect(claimed?.runId).toBe(first.run.runId);
        await store.appendJournal(first.run.runId, [{ seq: 1, at: iso(T0), runId: first.run.runId, agent: "lead", turn: 1, kind: "model_call", status: "ok", durationMs: 1 }]);
        await store.saveReport(first.run.runId, { contract: "run-report", version: 1 });

        // Running and pending runs are left alone.
        expect(await store.deleteFinishedRun!(first.run.runId)).toBe(false);
        expect(await store.deleteFinishedRun!(second.run.runId)).toBe(false);
        expect((await store.getRun(first.run.runId))?.status).toBe("running");

        const done = { contract: "status" as const, version: 2 as const, status: "succeeded" as const, stopReasons: [], text: "ok" };
        expect(await store.completeRun(first.run.runId, "worker", claimed!.epoch, { status: "success", outcome: done }, iso(T0 + 3))).toBe(true);
        expect(await store.deleteFinishedRun!(first.run.runId)).toBe(true);
        expect(await store.getRun(first.run.runId)).toBeNull();
        expect(await store.readJournal(first.run.runId)).toEqual([]);
        expect(await store.getReport(first.run.runId)).toBeNull();
        expect((await store.listRuns(threadId, { limit: 10, offset: 0 })).map((r) => r.runId)).toEqual([second.run.runId]);
        // Twice, or an unknown id: nothing to delete.
        expect(await store.deleteFinishedRun!(first.run.runId)).toBe(false);
        expect(await store.deleteFinishedRun!(randomUUID())).toBe(false);
        expect(await store.getThread(threadId)).not.toBeNull();
      } finally {
        await dispose();
      }
    });
  });
}

describeDeleteFinishedRun("memory", async () => ({ store: new MemoryRunStore(), dispose: async () => undefined }));

const dir = mkdtempSync(join(tmpdir(), "keel-delete-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
describeDeleteFinishedRun("SQLite", async () => {
  const store = await createSqlRunStore(`sqlite:${join(dir, `${randomUUID()}.db`)}`);
  return { store, dispose: () => store.close() };
});

const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping deleteFinishedRun on PostgreSQL: ${skipReason}`);
  describe.skip(`deleteFinishedRun: PostgreSQL (${skipReason})`, () => it("skipped", () => undefined));
} else {
  describeDeleteFinishedRun("PostgreSQL", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_delete_run");
    const store = await createSqlRunStore(url);
    return {
      store,
      dispose: async () => {
        await store.close();
        await drop();
      },
    };
  });
}
