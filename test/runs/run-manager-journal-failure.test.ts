import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import type { JournalEntry } from "../../kernel/runs/types.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import loopDetection from "../../plugins/loop-detection/index.js";
import { ManualClock, START_MS, storeWith } from "./run-manager-harness.js";

/**
 * Writing the journal is not fatal: a run whose journal writes fail keeps its real outcome
 * (here a loop stopped by loop-detection: `partial` + `loop_capped`), publishes `end`
 * without waiting for any lease to expire, and its report says the journal is incomplete.
 * The reaper never turns it into `lease_expired`.
 */

const echo = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: () => "echo" }],
});

const managers: RunManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.shutdown()));
});

type FailWhen = (batch: readonly JournalEntry[], call: number) => boolean;

/** A run service over the memory store whose `appendJournal` throws whenever `failWhen` says so. */
async function serve(failWhen: FailWhen) {
  const inner = new MemoryRunStore();
  const calls: Array<{ batch: JournalEntry[]; failed: boolean }> = [];
  const store = storeWith(inner, {
    appendJournal: async (runId: string, batch: readonly JournalEntry[]) => {
      const failed = failWhen(batch, calls.length + 1);
      calls.push({ batch: [...batch], failed });
      if (failed) throw new Error("disk full");
      await inner.appendJournal(runId, batch);
    },
  });
  const bridge = new MemoryStreamBridge();
  const checkpointer = new MemorySaver();
  // The same read forever: loop-detection stops it at the 5th identical call; the forced final answer has text.
  const model = new ScriptedChatModel({ script: { turns: [{ content: "Still echoing.", toolCalls: [{ name: "echo", args: { x: 1 } }] }], then: "repeat-last" }, faults: [] });
  const runtime = createAgentRuntime(compose({ name: "t", plugins: [echo, loopDetection] }), { model, checkpointer });
  // The clock never moves unless the test moves it: no lease can expire while the run finalizes.
  const clock = new ManualClock();
  const logs: string[] = [];
  const manager = new RunManager({
    store,
    bridge,
    executor: createRuntimeExecutor({ runtime, checkpointer }),
    clock,
    leaseTtlMs: 30_000,
    heartbeatMs: 10_000,
    journalBatchSize: 2,
    shutdownGraceMs: 0,
    log: (message) => logs.push(message),
  });
  managers.push(manager);
  const now = new Date(START_MS).toISOString();
  await inner.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  return { inner, bridge, manager, clock, calls, logs };
}

const hasEntry = (batch: readonly JournalEntry[], kind: string, name?: string) => batch.some((e) => e.kind === kind && (name === undefined || e.name === name));

const failures: Array<[string, FailWhen]> = [
  ["at start (the rollback point entry, written at once)", (batch) => hasEntry(batch, "lifecycle", "rollback_point")],
  ["mid-run (batches holding model calls)", (batch) => hasEntry(batch, "model_call")],
  ["at completion (the batch holding the runtime's end entry)", (batch) => hasEntry(batch, "lifecycle", "end")],
];

describe("journal persistence is non-fatal", () => {
  it.each(failures)("a journal that fails %s: real outcome, end at once, report marked incomplete, never lease_expired", async (_when, failWhen) => {
    const { inner, bridge, manager, clock, calls } = await serve(failWhen);

    const done = await manager.wait("t1", { assistantId: "lead", input: "Echo until told otherwise" }, { user: "alice" });

    // The real outcome, stored as such.
    expect(done.status).toBe("success");
    expect(done.outcome).toMatchObject({ status: "partial", primaryStopReason: "loop_capped", text: "Still echoing." });
    expect(done.outcome!.stopReasons.map((r) => [r.reason, r.by])).toEqual([["loop_capped", "loop-detection"]]);
    expect(calls.some((c) => c.failed)).toBe(true);

    // `end` was published without the clock moving: nobody waited for a lease.
    expect(clock.now()).toBe(START_MS);
    const events = await bridge.read(done.runId);
    expect(events.at(-1)!.event).toBe("end");
    expect(events.filter((e) => e.event === "error")).toEqual([]);

    // The report says what the store's journal lacks.
    const report = (await inner.getReport(done.runId)) as Record<string, unknown>;
    expect(validate("run-report@2", report).errors ?? []).toEqual([]);
    const stored = await inner.readJournal(done.runId);
    const failedBatches = calls.filter((c) => c.failed).length;
    expect(report.journalIncomplete).toBe(true);
    expect(report.journalGap).toEqual({ failedWrites: failedBatches, unwrittenEntries: expect.any(Number), firstError: "disk full" });
    const gap = report.journalGap as { unwrittenEntries: number };
    // Written + unwritten = every entry the run recorded (seq numbers 1..n, none written twice).
    const total = Math.max(...calls.flatMap((c) => c.batch.map((e) => e.seq)));
    expect(stored.length + gap.unwrittenEntries).toBe(total);
    expect(new Set(stored.map((e) => e.seq)).size).toBe(stored.length);
    expect(stored.some((e) => e.kind === "lifecycle" && e.name === "end")).toBe(false);

    // Long after, the reaper finds nothing to take: the run is finished, not left to its lease.
    clock.advance(10 * 30_000);
    expect(await manager.reapExpired()).toEqual([]);
    const after = await manager.getRun("t1", done.runId, { user: "alice" });
    expect(after.status).toBe("success");
    expect(after.outcome?.primaryStopReason).toBe("loop_capped");
    expect((await inner.getThread("t1"))!.status).toBe("idle");
  });

  it("a write that fails once is retried with the next one: the journal ends complete, in order, and the report is not marked", async () => {
    const { inner, manager, calls } = await serve((_batch, call) => call === 1);

    const done = await manager.wait("t1", { assistantId: "lead", input: "Echo until told otherwise" }, { user: "alice" });

    expect(done.outcome).toMatchObject({ status: "partial", primaryStopReason: "loop_capped" });
    expect(calls[0]!.failed).toBe(true);
    expect(calls[0]!.batch.map((e) => e.name)).toEqual(["rollback_point"]);
    const stored = await inner.readJournal(done.runId);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(stored[0]).toMatchObject({ kind: "lifecycle", name: "rollback_point", status: "captured" });
    expect(stored.at(-1)).toMatchObject({ kind: "lifecycle", name: "end", status: "partial" });
    const report = (await inner.getReport(done.runId)) as Record<string, unknown>;
    expect(report.journalIncomplete).toBeUndefined();
    expect(report.journalGap).toBeUndefined();
  });
});
