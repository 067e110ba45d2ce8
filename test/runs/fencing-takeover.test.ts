/**
 * A run taken over mid-run (two RunManagers on one store, each with its own injected
 * clock): worker A's lease expires while its model call is pending, worker B's reaper ends
 * the run and B runs the thread's next run. When A's call returns, every write A tries —
 * workspace file, checkpoint, journal, stream event — is refused (A's own view of its lease
 * is stale: its heartbeat "succeeds" and its clock stands still, so only the stores and the
 * run row can stop it), and B's history is intact: no write of A's generation follows B's.
 * On SQLite always; on PostgreSQL (database `keel_f`) when KEEL_TEST_PG_URL is reachable.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import type { JournalEntry, RunStore } from "../../kernel/runs/types.js";
import { UNSAFE_NO_FENCING_ENV } from "../../kernel/ports/fence.js";
import type { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { readWriteLog, workspacePlugin } from "../../plugins/workspace/index.js";
import { collectEpochHistory, epochViolations } from "../../tools/testing/epoch-history.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { fenceBackends, type FenceBackend as Backend } from "./fence-backends.js";
import { GatedModel } from "./gated-model.js";
import { ManualClock, START_MS, storeWith, until } from "./run-manager-harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const write = (content: string) => ({ toolCalls: [{ id: `write-${content}`, name: "write_file", args: { path: "a.txt", content } }] });

async function takeover(backend: Backend) {
  const { store, checkpointer, close } = await backend.open();
  const root = mkdtempSync(path.join(tmpdir(), "keel-fence-ws-"));
  cleanups.push(async () => {
    await close();
    rmSync(root, { recursive: true, force: true });
  });
  const bridge = new MemoryStreamBridge();
  const composition = compose({ name: "lead", plugins: [workspacePlugin] }, { config: [{ workspace: { root } }] });
  const logs: string[] = [];
  const worker = (workerId: string, clock: ManualClock, model: ScriptedChatModel, runStore: RunStore) => {
    const runtime = createAgentRuntime(composition, { model, checkpointer });
    const manager = new RunManager({
      store: runStore,
      bridge,
      executor: createRuntimeExecutor({ runtime, checkpointer }),
      workerId,
      clock,
      leaseTtlMs: 30_000,
      // No heartbeat tick within the test: A's journal stays buffered until it tries to write.
      heartbeatMs: 20_000,
      shutdownGraceMs: 0,
      log: (m) => logs.push(`${workerId}: ${m}`),
    });
    cleanups.push(() => manager.shutdown());
    return manager;
  };

  const now = new Date(START_MS).toISOString();
  await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  // A: writes a.txt, then its second model call hangs past the lease; when it returns, A writes again.
  const modelA = new GatedModel({ turns: [write("A1"), write("A-late"), { content: "A done" }] }, 2);
  const clockA = new ManualClock();
  // A's view of its lease is stale (a paused or partitioned worker): its heartbeat "succeeds".
  const staleStore = storeWith(store, { heartbeat: async () => true });
  const a = worker("worker-a", clockA, modelA, staleStore);
  const clockB = new ManualClock();
  const b = worker("worker-b", clockB, new ScriptedChatModel({ script: { turns: [write("B"), { content: "B done" }] } }), store);

  const run1 = await a.createOrReject("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
  await until(() => modelA.reachedGate, "A's second model call to start");
  const ckpt = checkpointer as KeelCheckpointSaver;
  const rowsOf = async (runId: string) => Number((await ckpt.executor.all("SELECT COUNT(*) AS n FROM keel_ckpt_checkpoints WHERE run_id = ?", [runId]))[0]!.n);
  const run1Checkpoints = await rowsOf(run1.runId);
  expect(run1Checkpoints).toBeGreaterThan(0);

  // B's reaper finds A's lease expired and ends run-1; B runs the thread's next run.
  clockB.advance(30_001);
  expect((await b.reapExpired()).map((r) => r.runId)).toEqual([run1.runId]);
  const run1Journal = (await store.readJournal(run1.runId)).length;
  const run1Events = (await bridge.read(run1.runId)).length;
  const run2 = await b.wait("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
  expect(run2.status).toBe("success");

  // A's call returns: its write_file is refused, and A stops.
  modelA.release();
  await until(() => logs.some((m) => m.startsWith("worker-a") && (m.includes("no terminal state written") || m.includes("terminal write was refused"))), "A to give up");

  return { store, bridge, ckpt, root, logs, run1, run2, clockA, rowsOf, run1Checkpoints, run1Journal, run1Events };
}

for (const backend of await fenceBackends("keel_f")) {
  describe(`fencing: a run taken over mid-run on ${backend.name}`, () => {
    it("refuses every later write of the old owner; the new owner's history is intact", async () => {
      const t = await takeover(backend);
      // Workspace: B's content stands; the write log has A's first write, then B's, and nothing of A after.
      expect(readFileSync(path.join(t.root, "t1", "a.txt"), "utf8")).toBe("B");
      expect((await readWriteLog({ root: t.root }, "t1")).map((w) => [w.runId, w.epoch])).toEqual([
        [t.run1.runId, t.run1.epoch],
        [t.run2.runId, t.run2.epoch],
      ]);
      // A's first write after its call returned — the checkpoint of that model step — was refused by the store's transaction.
      expect(t.logs.some((m) => m.startsWith("worker-a") && m.includes("lease lost") && m.includes("checkpoint write") && m.includes("the run is error"))).toBe(true);
      // Checkpoints, journal, events of run-1: nothing was added after the takeover.
      expect(await t.rowsOf(t.run1.runId)).toBe(t.run1Checkpoints);
      expect((await t.store.readJournal(t.run1.runId)).length).toBe(t.run1Journal);
      const events1 = await t.bridge.read(t.run1.runId);
      expect(events1.length).toBe(t.run1Events);
      expect(events1.at(-1)!.event).toBe("end");
      const stored1 = (await t.store.getRun(t.run1.runId))!;
      expect(stored1.outcome).toMatchObject({ status: "failed", primaryStopReason: "lease_expired" });

      // The same writes made directly with A's lease are refused by the stores themselves.
      const late: JournalEntry = { seq: 99, at: new Date(START_MS).toISOString(), runId: t.run1.runId, agent: "lead", turn: 2, kind: "lifecycle", name: "late", status: "ok", durationMs: 0 };
      await expect(t.store.appendJournal(t.run1.runId, [late], { owner: "worker-a", epoch: t.run1.epoch, now: t.clockA.now() })).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
      const head = await t.ckpt.getTuple({ configurable: { thread_id: "t1" } });
      await expect(
        t.ckpt.put({ configurable: { thread_id: "t1", checkpoint_ns: "", keel_fence: { runId: t.run1.runId, epoch: t.run1.epoch, now: () => t.clockA.now() } } }, { ...emptyCheckpoint(), id: uuid6(-1) }, { source: "loop", step: 9, parents: {} }, {}),
      ).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
      expect(await t.ckpt.getTuple({ configurable: { thread_id: "t1" } })).toEqual(head);
      await expect(t.bridge.publish(t.run1.runId, "values", {}, { epoch: t.run1.epoch })).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_ENDED" });

      // The history checker's view: every write records its epoch, and none breaks the order.
      const history = await collectEpochHistory(t.store, t.ckpt, "t1", { bridge: t.bridge, workspace: { root: t.root } });
      expect(history.runs.map((r) => r.runId)).toEqual([t.run1.runId, t.run2.runId]);
      expect(history.checkpoints.length).toBeGreaterThan(0);
      expect(history.checkpoints.every((w) => w.epoch !== null)).toBe(true);
      expect(history.journal.every((w) => w.epoch !== null)).toBe(true);
      expect(history.events.every((w) => w.epoch !== null)).toBe(true);
      expect(history.checkpoints.findLastIndex((w) => w.runId === t.run1.runId)).toBeLessThan(history.checkpoints.findIndex((w) => w.runId === t.run2.runId));
      expect(epochViolations(history)).toEqual([]);
    });

    it("appendJournal with a fence: one transaction — refused for a stale epoch, another owner, an expired lease, an ended or unknown run", async () => {
      const { store, close } = await backend.open();
      cleanups.push(close);
      const at = new Date(START_MS).toISOString();
      await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: at, updatedAt: at });
      await store.admitRun({ runId: "r1", threadId: "t1", assistantId: "lead", status: "pending", multitaskStrategy: "reject", epoch: 0, createdAt: at, updatedAt: at, user: "alice", request: { assistantId: "lead", input: "go" } });
      const run = (await store.claimNext("t1", "worker-a", 30_000, START_MS))!;
      const entry = (name: string): JournalEntry => ({ seq: 1, at, runId: "r1", agent: "lead", turn: 0, kind: "lifecycle", name, status: "ok", durationMs: 0, epoch: run.epoch });
      const held = { owner: "worker-a", epoch: run.epoch, now: START_MS + 1_000 };
      await store.appendJournal("r1", [entry("held"), { ...entry("held-2"), seq: 2 }], held);
      const refused = (fence: typeof held, why: RegExp, runId = "r1") =>
        expect(store.appendJournal(runId, [entry("late")], fence)).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(why) });
      await refused({ ...held, epoch: run.epoch + 1 }, /lease is at epoch 1/);
      await refused({ ...held, owner: "worker-b" }, /held by worker-a/);
      await refused({ ...held, now: START_MS + 30_000 }, /lease expired/);
      await refused(held, /no such run/, "r-unknown");
      expect(await store.completeRun("r1", "worker-a", run.epoch, { status: "success", outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "ok" } }, at)).toBe(true);
      await refused(held, /run is success/);
      const journal = await store.readJournal("r1");
      expect(journal.map((e) => [e.name, e.epoch])).toEqual([["held", 1], ["held-2", 1]]);
      // Unfenced appends are unchanged.
      await store.appendJournal("r1", [{ ...entry("unfenced"), seq: 3 }]);
      expect((await store.readJournal("r1")).map((e) => e.name)).toEqual(["held", "held-2", "unfenced"]);
    });

    it("negative control: with the test-only switch KEEL_TEST_UNSAFE_NO_FENCING=1 the old owner's late writes land and the checker reports them", async () => {
      process.env[UNSAFE_NO_FENCING_ENV] = "1";
      try {
        const t = await takeover(backend);
        expect(readFileSync(path.join(t.root, "t1", "a.txt"), "utf8")).toBe("A-late");
        const history = await collectEpochHistory(t.store, t.ckpt, "t1", { bridge: t.bridge, workspace: { root: t.root } });
        const violations = epochViolations(history);
        expect(violations.map((v) => v.kind)).toContain("workspace");
        expect(violations.map((v) => v.kind)).toContain("checkpoint");
        expect(violations.every((v) => v.write.runId === t.run1.runId && v.after.runId === t.run2.runId)).toBe(true);
      } finally {
        delete process.env[UNSAFE_NO_FENCING_ENV];
      }
    });
  });
}
