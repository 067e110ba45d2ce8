/**
 * Existing stock checkpoint stores keep working: a thread written by LangGraph's
 * SqliteSaver (`checkpoints.db` beside the store file) or PostgresSaver is migrated once
 * into Keel's tables and reads back, checkpoint by checkpoint and in history, as the stock
 * saver reads it; the migrated history is stored as deltas; the thread continues.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { closeCheckpointer, createCheckpointer, KeelCheckpointSaver, migrateStockPostgres, PostgresExecutor } from "../../plugins/store-sql/index.js";
import { pgReachable, PG_URL, pgSchemaPool } from "./backends.js";

const dir = mkdtempSync(join(tmpdir(), "keel-ckpt-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function chatGraph(checkpointer: BaseCheckpointSaver, prefix: string) {
  let n = 0;
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (s: { messages: BaseMessage[] }) => ({ messages: [new AIMessage({ content: `reply ${++n} to ${String(s.messages.at(-1)!.content)}`, id: `${prefix}-${n}` })] }))
    .addEdge("__start__", "reply")
    .compile({ checkpointer });
}

async function writeWithStock(saver: BaseCheckpointSaver): Promise<void> {
  const graph = chatGraph(saver, "stock");
  for (const thread of ["s1", "s2"]) {
    for (let i = 1; i <= 5; i += 1) await graph.invoke({ messages: [new HumanMessage({ content: `${thread} q${i}`, id: `${thread}-h${i}` })] }, { configurable: { thread_id: thread }, durability: "sync" });
  }
  // A pending write left on the newest checkpoint of s1 (an interrupted superstep).
  const head = await saver.getTuple({ configurable: { thread_id: "s1" } });
  await saver.putWrites(head!.config, [["messages", [new AIMessage({ content: "pending", id: "pending-1" })]]], "task-x");
}

const comparable = (t: CheckpointTuple) => ({
  id: t.config.configurable?.checkpoint_id,
  ns: t.config.configurable?.checkpoint_ns ?? "",
  parent: t.parentConfig?.configurable?.checkpoint_id,
  checkpoint: t.checkpoint,
  metadata: t.metadata,
  pendingWrites: [...(t.pendingWrites ?? [])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});

async function history(saver: BaseCheckpointSaver, thread: string) {
  const out = [];
  for await (const t of saver.list({ configurable: { thread_id: thread, checkpoint_ns: "" } })) out.push(comparable(t));
  return out;
}

async function expectSameReads(stock: BaseCheckpointSaver, keel: KeelCheckpointSaver) {
  for (const thread of ["s1", "s2"]) {
    const expected = await history(stock, thread);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(await history(keel, thread)).toEqual(expected);
    for (const entry of expected) expect(comparable((await keel.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: entry.id } }))!)).toEqual(entry);
  }
  const splices = await keel.executor.all(`SELECT COUNT(*) AS n FROM keel_ckpt_values WHERE channel = 'messages' AND op = 'splice'`, []);
  expect(Number(splices[0]!.n)).toBeGreaterThan(10);
}

describe("migrating stock checkpoint stores", () => {
  it("SqliteSaver's checkpoints.db beside the store file is read by the new checkpointer after a one-time migration", async () => {
    const storePath = join(dir, "sqlite", "keel.db");
    const stockPath = join(dir, "sqlite", "checkpoints.db");
    rmSync(join(dir, "sqlite"), { recursive: true, force: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(dir, "sqlite"), { recursive: true });
    const stock = SqliteSaver.fromConnString(stockPath);
    await writeWithStock(stock);

    const keel = await createCheckpointer(`sqlite:${storePath}`, { snapshotEvery: 4 });
    try {
      await expectSameReads(stock, keel);
      expect(JSON.parse((await keel.readMeta(`migrated:sqlite:${stockPath}`))!)).toMatchObject({ checkpoints: 30 });
      // The migrated thread continues on the new saver.
      const next = await chatGraph(keel, "keel").invoke({ messages: [new HumanMessage({ content: "s1 again", id: "s1-again" })] }, { configurable: { thread_id: "s1" }, durability: "sync" });
      expect(next.messages.map((m: BaseMessage) => m.content).slice(-3)).toEqual(["reply 5 to s1 q5", "s1 again", "reply 1 to s1 again"]);
    } finally {
      await closeCheckpointer(keel);
    }
    // Once: a second start does not import again (the stock file changed, the marker stands).
    await stock.putWrites((await stock.getTuple({ configurable: { thread_id: "s2" } }))!.config, [["messages", [new AIMessage({ content: "late", id: "late-1" })]]], "task-y");
    const again = await createCheckpointer(`sqlite:${storePath}`);
    try {
      expect((await again.getTuple({ configurable: { thread_id: "s2" } }))!.pendingWrites).toEqual([]);
    } finally {
      await closeCheckpointer(again);
      stock.db.close();
    }
  });

  it.skipIf(!pgReachable)("PostgresSaver's tables are read by the new checkpointer after a one-time migration", async () => {
    const { pool, schema, drop } = await pgSchemaPool();
    const stock = PostgresSaver.fromConnString(PG_URL, { schema });
    const keel = new KeelCheckpointSaver(new PostgresExecutor(pool), { snapshotEvery: 4 });
    try {
      await stock.setup();
      await writeWithStock(stock);
      await keel.setup();
      expect(await migrateStockPostgres(PG_URL, keel, schema)).toBe(30);
      await expectSameReads(stock, keel);
      expect(await migrateStockPostgres(PG_URL, keel, schema)).toBe(0);
    } finally {
      await stock.end();
      await keel.close();
      await drop();
    }
  });
});
