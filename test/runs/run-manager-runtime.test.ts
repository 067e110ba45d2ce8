import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { closeCheckpointer, createCheckpointer, createSqlRunStore, KeelCheckpointSaver, openSqliteHandle, SqliteExecutor } from "../../plugins/store-sql/index.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import { workspacePlugin } from "../../plugins/workspace/index.js";
import { ScriptedChatModel, type ScriptedAgent, type ScriptedFault } from "../../tools/testing/scripted-model.js";
import { until } from "./run-manager-harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const echo = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: () => "echo" }],
});

async function serve(options: { script: ScriptedAgent; faults?: ScriptedFault[]; checkpointer?: BaseCheckpointSaver; workspaceRoot?: string; maxTurns?: number; store?: RunStore }) {
  const store = options.store ?? new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const checkpointer = options.checkpointer ?? new MemorySaver();
  const root = options.workspaceRoot;
  // With a workspace root the stack has the workspace plugin: its `rollback` port undoes the run's files.
  const composition = root ? compose({ name: "lead", plugins: [echo, workspacePlugin] }, { config: [{ workspace: { root } }] }) : compose({ name: "lead", plugins: [echo] });
  const model = new ScriptedChatModel({ script: options.script, faults: options.faults ?? [] });
  const runtime = createAgentRuntime(composition, { model, checkpointer });
  const executor = createRuntimeExecutor({ runtime, checkpointer });
  const manager = new RunManager({ store, bridge, executor, shutdownGraceMs: 0, log: () => {}, ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}) });
  cleanups.push(() => manager.shutdown());
  const now = new Date().toISOString();
  await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  const texts = async () => (((await manager.getThreadState("t1", { user: "alice" })).messages as BaseMessage[] | undefined) ?? []).map((m) => String(m.content));
  return { store, bridge, manager, texts };
}

describe("RunManager over a real kernel runtime", () => {
  it("fences its checkpoint writes with the run's lease: every row of the run records its run id and epoch", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "keel-fenced-run-"));
    const url = `sqlite:${path.join(dir, "keel.db")}`;
    const store = await createSqlRunStore(url);
    const checkpointer = await createCheckpointer(url);
    cleanups.push(async () => {
      await closeCheckpointer(checkpointer);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const { manager } = await serve({ script: { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "done" }] }, checkpointer, store });
    const done = await manager.wait("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
    expect(done.outcome.status).toBe("succeeded");
    const rows = await checkpointer.executor.all(`SELECT DISTINCT run_id, epoch FROM keel_ckpt_checkpoints WHERE thread_id = 't1'`, []);
    expect(rows.map((r) => ({ run_id: r.run_id, epoch: Number(r.epoch) }))).toEqual([{ run_id: done.runId, epoch: done.epoch }]);
    expect(done.epoch).toBeGreaterThan(0);
  });

  it("runs a LangGraph-style input to a succeeded run with a valid run-report@2 (the version the kernel writes)", async () => {
    const { manager, store, bridge, texts } = await serve({ script: { turns: [{ content: "Hello, Alice." }] } });
    const done = await manager.wait("t1", { assistantId: "lead", input: { messages: [{ role: "user", content: "Hi, I am Alice" }] } }, { user: "alice" });

    expect(done.status).toBe("success");
    expect(done.outcome).toMatchObject({ status: "succeeded", text: "Hello, Alice." });
    expect(await texts()).toEqual(["Hi, I am Alice", "Hello, Alice."]);

    const events = await bridge.read(done.runId);
    expect(events[0]).toMatchObject({ event: "metadata", data: { run_id: done.runId, thread_id: "t1", attempt: 1 } });
    expect(events.filter((e) => e.event === "metadata")).toHaveLength(1); // the runtime's own is not sent twice
    expect(events.at(-1)!.event).toBe("end");

    const report = (await store.getReport(done.runId)) as Record<string, unknown>;
    const check = validate("run-report@2", report);
    expect(check.errors ?? []).toEqual([]);
    expect(report).toMatchObject({ scenario: "lead", threadId: "t1", runId: done.runId, outcome: done.outcome, turns: { lead: 1, total: 1 } });
    expect((report.events as unknown[]).length).toBe(events.length - 1);
    const journal = await store.readJournal(done.runId);
    expect(journal.map((e) => e.name ?? e.kind)).toEqual(["rollback_point", "start", "model_call", "end"]);
  });

  it("clamps a request's turn budget to the server maximum", async () => {
    const { manager } = await serve({ script: { turns: [{ toolCalls: [{ name: "echo", args: {} }] }], then: "repeat-last" }, maxTurns: 2 });
    const done = await manager.wait("t1", { assistantId: "lead", input: "loop", maxTurns: 1_000_000 }, { user: "alice" });
    expect(done.request.maxTurns).toBe(2);
    expect(done.outcome).toMatchObject({ status: "failed", primaryStopReason: "turn_capped", text: "Reached max_turns=2" });
  });

  it("an invalid input ends the run failed with KEEL_ERR_RUN_INPUT_INVALID", async () => {
    const { manager } = await serve({ script: { turns: [{ content: "never" }] } });
    const done = await manager.wait("t1", { assistantId: "lead", input: { messages: [{ role: "wizard", content: "x" }] } }, { user: "alice" });
    expect(done.outcome).toMatchObject({ status: "failed", error: { type: "KEEL_ERR_RUN_INPUT_INVALID" } });
  });

  for (const [name, makeSaver] of [
    ["MemorySaver", () => new MemorySaver()],
    ["SqliteSaver", () => SqliteSaver.fromConnString(":memory:")],
    ["KeelCheckpointSaver", () => new KeelCheckpointSaver(new SqliteExecutor(openSqliteHandle(":memory:"), true), { snapshotEvery: 2 })],
  ] as const) {
    it(`rollback restores the pre-run checkpoint and workspace exactly (${name})`, async () => {
      const root = mkdtempSync(path.join(tmpdir(), "keel-rollback-test-"));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      // Run 2's first model call hangs until it is cancelled; run 3 gets the next scripted answer.
      const { manager, store, texts } = await serve({
        script: { turns: [{ content: "first answer" }, { content: "third answer" }] },
        faults: [{ agent: "lead", turn: 2, kind: "hang", times: 1 }],
        checkpointer: makeSaver(),
        workspaceRoot: root,
      });
      const workspace = path.join(root, "t1");
      mkdirSync(workspace, { recursive: true });
      writeFileSync(path.join(workspace, "notes.md"), "before\n");

      await manager.wait("t1", { assistantId: "lead", input: "first" }, { user: "alice" });
      const second = await manager.createOrReject("t1", { assistantId: "lead", input: "second" }, { user: "alice" });
      await until(async () => (await texts()).includes("second"), "run 2 to checkpoint its input");
      writeFileSync(path.join(workspace, "notes.md"), "changed by run 2\n");
      writeFileSync(path.join(workspace, "new.txt"), "created by run 2\n");

      const third = await manager.createOrReject("t1", { assistantId: "lead", input: "third" }, { user: "alice", strategy: "rollback" });
      const cancelled = await manager.join(second.runId);
      expect(cancelled.status).toBe("interrupted");
      expect(cancelled.outcome!.text).toContain("restored to their state before the run");
      expect(readFileSync(path.join(workspace, "notes.md"), "utf8")).toBe("before\n");
      expect(existsSync(path.join(workspace, "new.txt"))).toBe(false);

      const done = await manager.join(third.runId);
      expect(done.outcome).toMatchObject({ status: "succeeded", text: "third answer" });
      // Run 2's input is gone; run 3 continued from run 1's state.
      expect(await texts()).toEqual(["first", "first answer", "third", "third answer"]);
      expect((await store.readJournal(second.runId)).map((e) => `${e.name}:${e.status}`)).toContain("rollback:restored");
    });
  }

  it("rolling back a thread's first run leaves the thread empty", async () => {
    const { manager, texts } = await serve({
      script: { turns: [{ content: "after rollback" }] },
      faults: [{ agent: "lead", turn: 1, kind: "hang", times: 1 }],
    });
    const first = await manager.createOrReject("t1", { assistantId: "lead", input: "doomed" }, { user: "alice" });
    await until(async () => (await texts()).includes("doomed"), "run 1 to checkpoint its input");
    await manager.cancel("t1", first.runId, { action: "rollback", wait: true });
    expect(await texts()).toEqual([]);
    const next = await manager.wait("t1", { assistantId: "lead", input: "fresh" }, { user: "alice" });
    expect(next.outcome!.text).toBe("after rollback");
    expect(await texts()).toEqual(["fresh", "after rollback"]);
  });

  it("without a checkpointer rollback is unavailable (409), never partial", async () => {
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    const model = new ScriptedChatModel({ script: { turns: [{ content: "x" }] }, faults: [{ agent: "lead", turn: 1, kind: "hang", times: 1 }] });
    const runtime = createAgentRuntime(compose({ name: "lead", plugins: [] }), { model });
    const manager = new RunManager({ store, bridge, executor: createRuntimeExecutor({ runtime }), shutdownGraceMs: 0, log: () => {} });
    cleanups.push(() => manager.shutdown());
    const now = new Date().toISOString();
    await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
    const run = await manager.createOrReject("t1", { assistantId: "lead", input: "hang" }, { user: "alice" });
    await expect(manager.createOrReject("t1", { assistantId: "lead", input: "redo" }, { user: "alice", strategy: "rollback" })).rejects.toMatchObject({
      code: "KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE",
    });
    expect((await store.getRun(run.runId))!.status).toBe("running");
  });
});
