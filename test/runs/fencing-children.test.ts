/**
 * Fencing of a run's model calls and of its delegated children:
 * - a heartbeat that keeps failing aborts an in-flight model call (the run's AbortSignal)
 *   at the lease's local deadline, and the run writes nothing terminal;
 * - a child's checkpoint writes are fenced by its parent's lease: refused locally once the
 *   parent's fence is lost (any saver), and by store-sql's saver against the parent's run
 *   row even when the local view is stale;
 * - delegation records carry both epochs: the child's lease@1 `epoch` and the parent's
 *   `parentEpoch`; a child's journal entries carry `epoch` (the run's) and `leaseEpoch`.
 */
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { compose } from "../../kernel/compose/index.js";
import { createChildRunner } from "../../kernel/loop/children.js";
import { RunScope, systemClock, type JournalRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { leaseFenced, type RunFence } from "../../kernel/ports/fence.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import batchLeasing from "../../plugins/batch-leasing/index.js";
import type { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import subagents from "../../plugins/subagents/index.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../tools/testing/scripted-model.js";
import { fenceBackends } from "./fence-backends.js";
import { GatedModel, SignalWaitingModel } from "./gated-model.js";
import { ManualClock, START_MS, storeWith, until } from "./run-manager-harness.js";

const backends = await fenceBackends("keel_f_children");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("heartbeat failure stops the run's calls", () => {
  it("aborts an in-flight model call at the lease's local deadline; nothing terminal is written", async () => {
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    const clock = new ManualClock();
    const model = new SignalWaitingModel();
    const checkpointer = new MemorySaver();
    const runtime = createAgentRuntime(compose({ name: "lead", plugins: [] }), { model, checkpointer });
    const logs: string[] = [];
    const failing = storeWith(store, { heartbeat: async () => { throw new Error("database unreachable"); } });
    const manager = new RunManager({ store: failing, bridge, executor: createRuntimeExecutor({ runtime, checkpointer }), clock, heartbeatMs: 5, leaseTtlMs: 30_000, shutdownGraceMs: 0, log: (m) => logs.push(m) });
    cleanups.push(() => manager.shutdown());
    const now = new Date(START_MS).toISOString();
    await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
    const run = await manager.createOrReject("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
    await until(() => model.started, "the model call to start");
    expect(model.sawAbort).toBe(false);

    clock.advance(25_000); // the default margin: min(5 s, (30 s − 5 ms) / 2) = 5 s
    await until(() => model.sawAbort, "the model call to be aborted");
    await until(() => logs.some((m) => m.includes("no terminal state written")), "the run to give up");
    const stored = (await store.getRun(run.runId))!;
    expect(stored.status).toBe("running");
    expect(await store.getReport(run.runId)).toBeNull();
    expect((await bridge.read(run.runId)).map((e) => e.event)).not.toContain("end");
    // The run's entries after the loss (the model call's, the runtime's `end`) were never written.
    expect((await store.readJournal(run.runId)).map((e) => e.name)).toEqual(["rollback_point"]);
  });
});

const task = (id: string) => ({ name: "task", id, args: { description: id, prompt: "p", subagentType: "general-purpose" } });
const returns: ScriptedAgent = { turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "ok" } }] }] };

/** A fence the test controls: `held` until `lose()`. */
function testFence(runId: string, epoch: number): RunFence & { lose(): void } {
  let held = true;
  return {
    runId,
    epoch,
    get held() {
      return held;
    },
    assertHeld(what = "a write") {
      if (!held) throw leaseFenced(runId, epoch, what, "the parent lost its lease");
    },
    lose: () => void (held = false),
  };
}

/** A lead with subagents (+ batch-leasing) whose one child's model call waits for the test (its input is checkpointed by then). */
function delegatingRuntime(checkpointer: BaseCheckpointSaver, withLeasing = false, scope?: RunScope) {
  const children: GatedModel[] = [];
  const agents = createChildRunner({
    composeChild: () => compose({ name: "sub", plugins: [] }),
    modelFor: (agentPath, type) => {
      const model = new GatedModel(returns, 1, { agentPath, agentType: type });
      children.push(model);
      return model;
    },
    types: ["general-purpose"],
    checkpointer,
    ...(scope ? { scopeFor: () => scope } : {}),
  });
  const plugins = withLeasing ? [subagents, batchLeasing] : [subagents];
  const runtime = createAgentRuntime(compose({ name: "t", plugins }), { model: new ScriptedChatModel({ script: { turns: [{ toolCalls: [task("t1")] }, { content: "done" }] } }), ports: { agents }, checkpointer });
  return { runtime, children };
}

async function checkpointCount(saver: BaseCheckpointSaver, threadId: string): Promise<number> {
  let n = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) n++;
  return n;
}

describe("a child's writes are fenced by its parent's lease", () => {
  it("after the parent lost its lease, the child's next checkpoint write is refused (any saver), and so is the parent's delegation entry", async () => {
    const checkpointer = new MemorySaver();
    const { runtime, children } = delegatingRuntime(checkpointer);
    const fence = testFence("r1", 4);
    const running = runtime.run({ threadId: "th", runId: "r1", input: "go", fence });
    await until(() => children[0]?.reachedGate === true, "the child's model call");
    const childThread = "th/lead/t1";
    const before = await checkpointCount(checkpointer, childThread);
    expect(before).toBeGreaterThan(0);
    const ledgerBefore = ((await runtime.getState("th")).delegations as Array<{ status: string }>).map((d) => d.status);
    expect(ledgerBefore).toEqual(["in_progress"]);

    fence.lose();
    children[0]!.release();
    await expect(running).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
    expect(await checkpointCount(checkpointer, childThread)).toBe(before);
    // The delegation's terminal entry never reached a checkpoint.
    expect(((await runtime.getState("th")).delegations as Array<{ status: string }>).map((d) => d.status)).toEqual(["in_progress"]);
  });

  for (const backend of backends) {
    it(`store-sql's saver on ${backend.name} refuses the child's checkpoint write against the parent's run row, even while the local view says held`, async () => {
      const { store, checkpointer, close } = await backend.open();
      cleanups.push(close);
      const now = new Date(START_MS).toISOString();
      await store.createThread({ threadId: "th", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
      await store.admitRun({ runId: "r1", threadId: "th", assistantId: "t", status: "pending", multitaskStrategy: "reject", epoch: 0, createdAt: now, updatedAt: now, user: "alice", request: { assistantId: "t", input: "go" } });
      const claimed = (await store.claimNext("th", "worker-a", 30_000, START_MS))!;
      expect(claimed.epoch).toBe(1);

      const { runtime, children } = delegatingRuntime(checkpointer);
      // A stale local view: always held; only the store can refuse.
      const fence: RunFence = { runId: "r1", epoch: 1, held: true, assertHeld: () => undefined, now: () => START_MS };
      const running = runtime.run({ threadId: "th", runId: "r1", input: "go", fence });
      await until(() => children[0]?.reachedGate === true, "the child's model call");
      const childThread = "th/lead/t1";
      const before = await checkpointCount(checkpointer, childThread);
      const rows = await (checkpointer as KeelCheckpointSaver).executor.all("SELECT DISTINCT run_id, epoch FROM keel_ckpt_checkpoints WHERE thread_id = ?", [childThread]);
      expect(rows.map((r) => [r.run_id, Number(r.epoch)])).toEqual([["r1", 1]]);

      // Another worker's reaper ended the parent run.
      expect(await store.expireRun("r1", 1, { contract: "status", version: 2, status: "failed", stopReasons: [], text: "lease expired" }, START_MS + 30_001)).toBe(true);
      children[0]!.release();
      await expect(running).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/the run is error/) });
      expect(await checkpointCount(checkpointer, childThread)).toBe(before);
    });
  }

  it("delegation records carry the child's lease epoch and the parent's epoch; the child's journal entries both", async () => {
    const checkpointer = new MemorySaver();
    const journal: JournalRecord[] = [];
    const scope = new RunScope("r1", "th", systemClock, { journal: (e) => journal.push(e) });
    const { runtime, children } = delegatingRuntime(checkpointer, true, scope);
    const fence = testFence("r1", 7);
    const running = runtime.run({ threadId: "th", runId: "r1", input: "go", fence, scope });
    await until(() => children[0]?.reachedGate === true, "the child's model call");
    children[0]!.release();
    const result = await running;
    expect(result.outcome.status).toBe("succeeded");
    const [lease] = result.values.leases as Array<Record<string, unknown>>;
    expect(lease).toMatchObject({ taskId: "t1", epoch: 1, parentEpoch: 7 });
    expect(validate("lease@1", lease)).toEqual({ valid: true, errors: [] });
    const [entry] = result.values.delegations as Array<{ lease?: Record<string, unknown> }>;
    expect(entry!.lease).toMatchObject({ epoch: 1, parentEpoch: 7 });
    expect(validate("delegation@1", entry)).toEqual({ valid: true, errors: [] });
    const childEntries = journal.filter((e) => e.agent === "lead/t1");
    expect(childEntries.length).toBeGreaterThan(2);
    expect(childEntries.every((e) => e.leaseEpoch === 1)).toBe(true);
    expect(journal.filter((e) => e.agent === "lead").every((e) => e.leaseEpoch === undefined)).toBe(true);
  });
});
