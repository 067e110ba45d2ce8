/**
 * A step's pending writes ride in its checkpoint's transaction (`parked-writes.ts`): under
 * `durability: "sync"` every `put` of a LangGraph run after the first carries the writes
 * of the step that produced it and no `putWrites` is written alone, while what the
 * history reads back is what LangGraph's own MemorySaver gives for the same run. Writes
 * no `put` takes (a failing step, an interrupt) are written alone; a refused `put` refuses
 * the writes riding with it; a `put` under another fence leaves them alone.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { PostgresExecutor } from "../../plugins/store-sql/checkpoints/postgres-executor.js";
import type { CheckpointWrite, PendingWritesWrite } from "../../plugins/store-sql/checkpoints/sql-executor.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { backends, pgReachable, pgSchemaPool } from "./backends.js";

const RUNS_DDL = `CREATE TABLE keel_runs (run_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, lease_expires_at TEXT)`;

/** Records what the saver hands its executor. */
function recordCalls(saver: KeelCheckpointSaver): { puts: CheckpointWrite[]; alone: PendingWritesWrite[] } {
  const executor = saver.executor;
  const calls = { puts: [] as CheckpointWrite[], alone: [] as PendingWritesWrite[] };
  const put = executor.putCheckpoint.bind(executor);
  const putWrites = executor.putPendingWrites.bind(executor);
  executor.putCheckpoint = (write, judge) => (calls.puts.push(write), put(write, judge));
  executor.putPendingWrites = (write, judge) => (calls.alone.push(write), putWrites(write, judge));
  return calls;
}

/** Agent ↔ tools, with a step of two tasks (the tools and an audit node run side by side). */
function toolLoop(turns: number, checkpointer: BaseCheckpointSaver) {
  const usage = { input_tokens: 1, output_tokens: 1 };
  const model = new ScriptedChatModel({ script: { turns: [...Array.from({ length: turns }, (_, i) => ({ toolCalls: [{ name: "noop", args: { i } }], usage })), { content: "done", usage }] } });
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s: { messages: BaseMessage[] }) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", async (s: { messages: BaseMessage[] }) => ({
      messages: ((s.messages.at(-1) as AIMessage).tool_calls ?? []).map((c) => new ToolMessage({ tool_call_id: c.id!, name: c.name, content: `ok ${JSON.stringify(c.args)}` })),
    }))
    .addNode("audit", async () => ({ messages: [new HumanMessage({ content: "audited" })] }))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s: { messages: BaseMessage[] }) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? ["tools", "audit"] : END))
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}

/** A run's history without what differs between two runs of it (ids, timestamps, message ids). */
async function historyOf(graph: ReturnType<typeof toolLoop>, threadId: string) {
  const out: unknown[] = [];
  for await (const s of graph.getStateHistory({ configurable: { thread_id: threadId } })) {
    out.push({
      values: (s.values.messages as BaseMessage[]).map((m) => [m.getType(), m.content]),
      next: [...s.next].sort(),
      step: s.metadata?.step,
      source: s.metadata?.source,
      tasks: s.tasks.map((t) => [t.name, t.error === undefined ? null : String((t.error as Error).message ?? t.error), t.interrupts.map((i) => i.value)]).sort(),
    });
  }
  return out;
}

const checkpointWith = (messages: unknown[], parent?: Checkpoint): Checkpoint => ({
  ...emptyCheckpoint(),
  id: uuid6(-1),
  channel_values: { messages },
  channel_versions: { messages: Number(parent?.channel_versions.messages ?? 0) + 1 },
});

for (const backend of backends) {
  describe(`a step's writes ride with its checkpoint on ${backend.name}`, () => {
    it("every put of a sync run after the first carries its step's writes, none is written alone, and the history equals MemorySaver's", async () => {
      const { saver, close } = await backend.open();
      try {
        const calls = recordCalls(saver);
        await toolLoop(3, saver).invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "t" }, durability: "sync" });
        const memory = new MemorySaver();
        await toolLoop(3, memory).invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "t" }, durability: "sync" });

        expect(calls.alone).toEqual([]);
        expect(calls.puts.length).toBeGreaterThan(6);
        for (const [i, put] of calls.puts.entries()) {
          const riding = put.pendingWrites ?? [];
          if (i === 0) expect(riding).toEqual([]);
          else {
            expect(riding.length).toBeGreaterThan(0);
            for (const w of riding) expect(w.checkpointId).toBe(put.checkpoint.parentId);
          }
        }
        // The two-task steps: both tasks' writes in one put.
        expect(calls.puts.filter((p) => (p.pendingWrites ?? []).length === 2).length).toBe(3);
        expect(await historyOf(toolLoop(0, saver), "t")).toEqual(await historyOf(toolLoop(0, memory), "t"));
      } finally {
        await close();
      }
    });

    it("a failing step's error and an interrupt are written alone, read back as MemorySaver's, and the run resumes", async () => {
      const { saver, close } = await backend.open();
      try {
        const calls = recordCalls(saver);
        const build = (checkpointer: BaseCheckpointSaver, failing: { left: number }) =>
          new StateGraph(MessagesAnnotation)
            .addNode("ask", () => ({ messages: [new HumanMessage({ content: `approved: ${String(interrupt("approve?"))}` })] }))
            .addNode("flaky", () => {
              if (failing.left-- > 0) throw new Error("flaky failed");
              return { messages: [new AIMessage({ content: "recovered" })] };
            })
            .addEdge(START, "ask")
            .addEdge("ask", "flaky")
            .addEdge("flaky", END)
            .compile({ checkpointer });
        const runs = async (checkpointer: BaseCheckpointSaver) => {
          const graph = build(checkpointer, { left: 1 });
          const config = { configurable: { thread_id: "t" }, durability: "sync" as const };
          await graph.invoke({ messages: [{ role: "user", content: "go" }] }, config);
          const interrupted = await graph.getState(config);
          await expect(graph.invoke(new Command({ resume: "yes" }), config)).rejects.toThrow("flaky failed");
          const failed = await graph.getState(config);
          await graph.invoke(null, config);
          const done = await graph.getState(config);
          return [interrupted, failed, done].map((s) => ({
            next: s.next,
            values: (s.values.messages as BaseMessage[]).map((m) => m.content),
            tasks: s.tasks.map((t) => [t.name, t.error === undefined ? null : String((t.error as Error).message ?? t.error), t.interrupts.map((i) => i.value)]),
          }));
        };
        const keel = await runs(saver);
        expect(keel).toEqual(await runs(new MemorySaver()));
        expect(keel[1]!.tasks).toEqual([["flaky", "flaky failed", []]]);
        expect(keel[0]!.tasks).toEqual([["ask", null, ["approve?"]]]);
        expect(keel[2]!.values).toEqual(["go", "approved: yes", "recovered"]);
        const aloneChannels = calls.alone.flatMap((w) => w.rows.map((r) => r.channel));
        expect(aloneChannels).toContain("__interrupt__");
        expect(aloneChannels).toContain("__error__");
      } finally {
        await close();
      }
    });

    it("a refused put refuses the writes riding with it; a put under another fence leaves them to be written alone", async () => {
      const { saver, sql, close } = await backend.open({ now: () => Date.parse("2030-01-01T00:00:00.000Z") });
      try {
        const calls = recordCalls(saver);
        await sql(RUNS_DDL);
        await sql(`INSERT INTO keel_runs (run_id, epoch, status, lease_expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)`, ["run-1", 2, "running", "2031-01-01T00:00:00.000Z", "run-2", 1, "running", "2031-01-01T00:00:00.000Z"]);
        const fenced = (runId: string, epoch: number, checkpointId?: string) => ({ configurable: { thread_id: "t", checkpoint_ns: "", ...(checkpointId ? { checkpoint_id: checkpointId } : {}), keel_fence: { runId, epoch } } });
        const first = checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]);
        await saver.put(fenced("run-1", 2), first, { source: "input", step: -1, parents: {} }, {});
        const second = checkpointWith([...(first.channel_values.messages as unknown[]), new AIMessage({ content: "yo", id: "m2" })], first);

        // Stale epoch: the put and the writes it took are refused together, nothing written.
        const staleWrites = saver.putWrites(fenced("run-1", 1, first.id), [["messages", "stale"]], "task-1");
        const stalePut = saver.put(fenced("run-1", 1, first.id), second, { source: "loop", step: 0, parents: {} }, {});
        await expect(stalePut).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
        await expect(staleWrites).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
        expect(calls.alone).toEqual([]);
        expect(calls.puts.at(-1)!.pendingWrites?.map((w) => w.taskId)).toEqual(["task-1"]);
        expect(Number((await sql(`SELECT COUNT(*) AS n FROM keel_ckpt_writes`))[0]!.n)).toBe(0);

        // Writes under run-2's fence do not ride with run-1's put: they are written alone, and both land.
        const otherWrites = saver.putWrites(fenced("run-2", 1, first.id), [["messages", "other"]], "task-2");
        await saver.put(fenced("run-1", 2, first.id), second, { source: "loop", step: 0, parents: {} }, {});
        await otherWrites;
        expect(calls.puts.at(-1)!.pendingWrites).toBeUndefined();
        expect(calls.alone.map((w) => [w.taskId, w.fence?.runId])).toEqual([["task-2", "run-2"]]);
        const tuple = (await saver.getTuple({ configurable: { thread_id: "t", checkpoint_id: first.id } }))!;
        expect(tuple.pendingWrites).toEqual([["task-2", "messages", "other"]]);
      } finally {
        await close();
      }
    });
  });
}

describe.skipIf(!pgReachable)("the put function's plans on PostgreSQL", () => {
  it("the generic plan of deleting a checkpoint's values uses the primary key, not a scan of the thread's rows (the old index is dropped)", async () => {
    const { pool, drop } = await pgSchemaPool();
    const saver = new KeelCheckpointSaver(new PostgresExecutor(pool));
    const client = await (await saver.setup(), pool.connect());
    try {
      // A database created by an earlier version has the old index: opening drops it.
      await client.query(`CREATE INDEX keel_ckpt_values_snapshot ON keel_ckpt_values (thread_id, checkpoint_ns, snapshot_id)`);
      await new KeelCheckpointSaver(new PostgresExecutor(pool)).setup();
      const indexes = (await client.query(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'keel_ckpt_values' ORDER BY indexname`)).rows.map((r) => r.indexname);
      expect(indexes).toEqual(["keel_ckpt_values_by_snapshot", "keel_ckpt_values_pkey"]);
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE keel_delete_values (text, text, text) AS DELETE FROM keel_ckpt_values WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`);
      const plan = (await client.query(`EXPLAIN EXECUTE keel_delete_values('t', '', 'c')`)).rows.map((r) => String(r["QUERY PLAN"])).join("\n");
      expect(plan).toMatch(/keel_ckpt_values_pkey/);
      expect(plan).toMatch(/Index Cond: \(\(thread_id = \$1\) AND \(checkpoint_ns = \$2\) AND \(checkpoint_id = \$3\)\)/);
    } finally {
      client.release();
      await saver.close();
      await drop();
    }
  });
});
