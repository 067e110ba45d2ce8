/**
 * The Keel runtime on KeelCheckpointSaver: a run's every checkpoint and its history equal
 * what MemorySaver stored from the same calls (a tee feeds both), the run checkpoints as
 * deltas, a second run after a "restart" (a new saver and runtime on the same file)
 * resumes from the thread's state, and each step is committed before the next starts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { BaseCheckpointSaver, MemorySaver, type ChannelVersions, type Checkpoint, type CheckpointListOptions, type CheckpointMetadata, type PendingWrite } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { createCheckpointer, closeCheckpointer } from "../../plugins/store-sql/index.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";

const dir = mkdtempSync(join(tmpdir(), "keel-ckpt-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const echo = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: () => "echo" }],
});

/** Every call goes to both savers with the same arguments; reads come from `primary`. */
class TeeSaver extends BaseCheckpointSaver {
  constructor(
    readonly primary: BaseCheckpointSaver,
    readonly shadow: BaseCheckpointSaver,
  ) {
    super();
  }
  override getTuple(config: RunnableConfig) {
    return this.primary.getTuple(config);
  }
  override list(config: RunnableConfig, options?: CheckpointListOptions) {
    return this.primary.list(config, options);
  }
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, versions: ChannelVersions) {
    await this.shadow.put(config, checkpoint, metadata, versions);
    return this.primary.put(config, checkpoint, metadata, versions);
  }
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string) {
    await this.shadow.putWrites(config, writes, taskId, taskPath);
    await this.primary.putWrites(config, writes, taskId, taskPath);
  }
  override async deleteThread(threadId: string) {
    await this.shadow.deleteThread(threadId);
    await this.primary.deleteThread(threadId);
  }
}

const script = (turns: number, text: string) => ({ turns: [...Array.from({ length: turns }, () => ({ toolCalls: [{ name: "echo", args: {} }] })), { content: text }] });

async function history(saver: BaseCheckpointSaver, threadId: string) {
  const out = [];
  for await (const t of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } })) {
    out.push({ id: t.config.configurable?.checkpoint_id, parent: t.parentConfig?.configurable?.checkpoint_id, checkpoint: t.checkpoint, metadata: t.metadata, pendingWrites: t.pendingWrites });
  }
  return out;
}

describe("the Keel runtime on KeelCheckpointSaver (SQLite file)", () => {
  it("checkpoints a run exactly as MemorySaver does, as deltas, and resumes after a restart", async () => {
    const url = `sqlite:${join(dir, "run", "keel.db")}`;
    const composition = compose({ name: "lead", plugins: [echo] });
    const keel = await createCheckpointer(url, { snapshotEvery: 4 });
    const memory = new MemorySaver();
    const tee = new TeeSaver(keel, memory);
    try {
      const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: script(6, "first done") }), checkpointer: tee });
      const result = await runtime.run({ threadId: "t1", runId: "r1", input: "go" });
      expect(result.outcome.status).toBe("succeeded");
      const onMemory = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: script(0, "") }), checkpointer: memory });
      const state = await runtime.getState("t1");
      expect(state).toEqual(await onMemory.getState("t1"));
      expect((state.messages as BaseMessage[]).length).toBe(14);
      const mine = await history(keel, "t1");
      expect(mine).toEqual(await history(memory, "t1"));
      expect(mine.length).toBeGreaterThan(12);
      for (const entry of mine) {
        const one = await keel.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: entry.id } });
        expect(one?.checkpoint).toEqual(entry.checkpoint);
      }
      // Stored as deltas: most message rows are splices, a snapshot every 4 steps.
      const rows = await keel.executor.all(`SELECT op, COUNT(*) AS n FROM keel_ckpt_values WHERE channel = 'messages' GROUP BY op ORDER BY op`, []);
      const byOp = Object.fromEntries(rows.map((r) => [r.op, Number(r.n)]));
      expect(byOp.splice).toBeGreaterThan(byOp.set ?? 0);
    } finally {
      await closeCheckpointer(keel);
    }

    // A new process: a fresh saver (no cached head) and runtime on the same file.
    const reopened = await createCheckpointer(url, { snapshotEvery: 4 });
    try {
      const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: script(2, "second done") }), checkpointer: reopened });
      const before = ((await runtime.getState("t1")).messages as BaseMessage[]).length;
      const result = await runtime.run({ threadId: "t1", runId: "r2", input: "again" });
      expect(result.outcome.status).toBe("succeeded");
      const messages = (await runtime.getState("t1")).messages as BaseMessage[];
      expect(messages.slice(0, before).map((m) => m.content)).toEqual(["go", ...Array.from({ length: 6 }, () => ["", "echo"]).flat(), "first done"]);
      // The scripted model numbers tool calls per run, so run 2's tool results replace run 1's by id (as on MemorySaver).
      expect(messages.slice(before).map((m) => m.content)).toEqual(["again", "", "", "second done"]);
      expect(messages.map((m) => m.id)).toContain("r2:lead:3");
    } finally {
      await closeCheckpointer(reopened);
    }
  });

  it("commits each step before the next one starts (durability sync)", async () => {
    const composition = compose({ name: "lead", plugins: [echo] });
    const model = new ScriptedChatModel({ script: script(2, "done") });
    let release: () => void = () => undefined;
    let blockedAt: number | undefined;
    let putCount = 0;
    class SlowSaver extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        putCount += 1;
        if (putCount === 3) {
          blockedAt = model.turnsAnswered;
          await new Promise<void>((resolve) => (release = resolve));
        }
        return super.put(...args);
      }
    }
    const runtime = createAgentRuntime(composition, { model, checkpointer: new SlowSaver() });
    const running = runtime.run({ threadId: "d1", runId: "r1", input: "go" });
    while (blockedAt === undefined) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 50; i += 1) await new Promise((r) => setImmediate(r));
    // While the third checkpoint is not stored, the loop has not called the model again.
    expect(model.turnsAnswered).toBe(blockedAt);
    release();
    expect((await running).outcome.status).toBe("succeeded");
  });
});
