/**
 * The lease fence (`configurable.keel_fence = { runId, epoch }`): checked against the run
 * store's lease row in the same transaction as the write; a stale epoch, an ended run,
 * an expired lease, an unknown run or a malformed fence refuses the write with
 * KEEL_ERR_LEASE_FENCED and nothing is written; every row records its epoch.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { closeCheckpointer, createCheckpointer, createSqlRunStore } from "../../plugins/store-sql/index.js";
import { backends } from "./backends.js";

const NOW = Date.parse("2030-01-01T00:00:00.000Z");
const later = (ms: number) => new Date(NOW + ms).toISOString();

const RUNS_DDL = `CREATE TABLE keel_runs (run_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, lease_expires_at TEXT)`;

function checkpointWith(messages: unknown[], parent?: Checkpoint): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: (Number(parent?.channel_versions.messages ?? 0) + 1) } };
}

const countRows = async (sql: (text: string) => Promise<Record<string, unknown>[]>) =>
  Object.fromEntries(
    await Promise.all(["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes"].map(async (t) => [t, Number((await sql(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n)])),
  );

for (const backend of backends) {
  describe(`lease fence on ${backend.name}`, () => {
    it("writes under the held lease record its epoch; a stale, ended, expired, unknown or malformed fence writes nothing", async () => {
      let now = NOW;
      const { saver, sql, close } = await backend.open({ now: () => now });
      try {
        await sql(RUNS_DDL);
        await sql(`INSERT INTO keel_runs (run_id, epoch, status, lease_expires_at) VALUES (?, ?, ?, ?)`, ["run-1", 3, "running", later(30_000)]);
        const held = { configurable: { thread_id: "t", checkpoint_ns: "", keel_fence: { runId: "run-1", epoch: 3 } } };
        const first = checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]);
        const config1 = await saver.put(held, first, { source: "input", step: -1, parents: {} }, {});
        await saver.putWrites({ ...config1, configurable: { ...config1.configurable, keel_fence: { runId: "run-1", epoch: 3 } } }, [["messages", [new AIMessage({ content: "yo", id: "m2" })]]], "task-1");
        const second = checkpointWith([...(first.channel_values.messages as unknown[]), new AIMessage({ content: "yo", id: "m2" })], first);
        await saver.put({ configurable: { ...config1.configurable, keel_fence: { runId: "run-1", epoch: 3 } } }, second, { source: "loop", step: 0, parents: {} }, {});
        for (const table of ["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes"]) {
          const rows = await sql(`SELECT DISTINCT run_id, epoch FROM ${table}`);
          expect(rows.map((r) => ({ run_id: r.run_id, epoch: Number(r.epoch) }))).toEqual([{ run_id: "run-1", epoch: 3 }]);
        }
        // The second checkpoint was a delta: one message appended.
        expect((await sql(`SELECT op FROM keel_ckpt_values WHERE checkpoint_id = ?`, [second.id])).map((r) => r.op)).toEqual(["splice"]);

        const stored = await countRows(sql);
        const head = await saver.getTuple({ configurable: { thread_id: "t" } });
        const attempt = (fence: unknown) => {
          const parent = { configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: second.id, keel_fence: fence } };
          const third = checkpointWith([...(second.channel_values.messages as unknown[]), new HumanMessage({ content: "late", id: "m3" })], second);
          return [() => saver.put(parent, third, { source: "loop", step: 1, parents: {} }, {}), () => saver.putWrites(parent, [["messages", "late"]], "task-2")];
        };
        const refusedAll = async (fence: unknown, why: RegExp) => {
          for (const write of attempt(fence)) await expect(write()).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(why) });
        };

        // Another worker claimed the run: epoch 4.
        await sql(`UPDATE keel_runs SET epoch = 4 WHERE run_id = ?`, ["run-1"]);
        await refusedAll({ runId: "run-1", epoch: 3 }, /lease is at epoch 4/);
        // The new owner writes; then the run ends, and then a lease that expired.
        await sql(`UPDATE keel_runs SET status = 'success' WHERE run_id = ?`, ["run-1"]);
        await refusedAll({ runId: "run-1", epoch: 4 }, /run is success/);
        await sql(`UPDATE keel_runs SET status = 'running' WHERE run_id = ?`, ["run-1"]);
        now = NOW + 30_001;
        await refusedAll({ runId: "run-1", epoch: 4 }, /lease expired/);
        now = NOW;
        await refusedAll({ runId: "run-9", epoch: 1 }, /no such run/);
        await refusedAll({ runId: "run-1", epoch: "4" }, /must be \{ runId: string, epoch: integer \}/);

        expect(await countRows(sql)).toEqual(stored);
        expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toEqual(head);

        // The current epoch still writes; an unfenced write records no epoch.
        const [put, writes] = attempt({ runId: "run-1", epoch: 4 });
        await put!();
        await writes!();
        expect((await sql(`SELECT epoch FROM keel_ckpt_checkpoints ORDER BY checkpoint_id DESC LIMIT 1`)).map((r) => Number(r.epoch))).toEqual([4]);
        await saver.put({ configurable: { thread_id: "u", checkpoint_ns: "" } }, checkpointWith([]), { source: "input", step: -1, parents: {} }, {});
        expect((await sql(`SELECT run_id, epoch FROM keel_ckpt_checkpoints WHERE thread_id = 'u'`))[0]).toEqual({ run_id: null, epoch: null });
        // The lease holder's clock (fence.now) judges expiry, not the saver's.
        await expect(attempt({ runId: "run-1", epoch: 4, now: () => NOW + 30_001 })[0]!()).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/lease expired/) });
      } finally {
        await close();
      }
    });

    it("beside another run store (no keel_runs table in its database) a fenced write is not refused, and records its epoch", async () => {
      const { saver, sql, close } = await backend.open({ now: () => NOW });
      try {
        const fenced = { configurable: { thread_id: "elsewhere", checkpoint_ns: "", keel_fence: { runId: "run-x", epoch: 2 } } };
        await saver.put(fenced, checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]), { source: "input", step: -1, parents: {} }, {});
        expect((await sql(`SELECT run_id, epoch FROM keel_ckpt_checkpoints WHERE thread_id = 'elsewhere'`)).map((r) => ({ run_id: r.run_id, epoch: Number(r.epoch) }))).toEqual([{ run_id: "run-x", epoch: 2 }]);
        // The run store's table created afterwards is checked from then on (the saver looks for it until it exists)…
        await sql(RUNS_DDL);
        const next = (thread: string) => saver.put({ configurable: { ...fenced.configurable, thread_id: thread } }, checkpointWith([]), { source: "input", step: -1, parents: {} }, {});
        await expect(next("after-create")).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/no such run/) });
        // …and dropped again, nothing is checked again.
        await sql(`DROP TABLE keel_runs`);
        await next("after-drop");
        expect((await sql(`SELECT thread_id FROM keel_ckpt_checkpoints ORDER BY thread_id`)).map((r) => r.thread_id)).toEqual(["after-drop", "elsewhere"]);
      } finally {
        await close();
      }
    });
  });
}

describe("lease fence against the real run store (SQLite file shared with the store)", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-ckpt-fence-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a LangGraph graph invoked with the run's fence checkpoints under its epoch, and is refused once the reaper ended the run", async () => {
    const url = `sqlite:${join(dir, "keel.db")}`;
    const store = await createSqlRunStore(url);
    const checkpointer = await createCheckpointer(url);
    try {
      await store.createThread({ threadId: "t", owner: "u", status: "idle", metadata: {}, createdAt: later(0), updatedAt: later(0) });
      const run = { runId: "r1", threadId: "t", assistantId: "lead", status: "pending" as const, multitaskStrategy: "enqueue" as const, epoch: 0, createdAt: later(0), updatedAt: later(0), user: "u", request: { assistantId: "lead", input: "hi" } };
      await store.admitRun(run);
      const claimed = (await store.claimNext("t", "worker-a", 60_000, Date.now()))!;
      const graph = new StateGraph(MessagesAnnotation).addNode("reply", () => ({ messages: [new AIMessage("hello")] })).addEdge("__start__", "reply").compile({ checkpointer });
      const fence = { runId: "r1", epoch: claimed.epoch };
      await graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "t", keel_fence: fence }, durability: "sync" });
      const epochs = await checkpointer.executor.all(`SELECT DISTINCT epoch FROM keel_ckpt_checkpoints WHERE thread_id = 't'`, []);
      expect(epochs.map((r) => Number(r.epoch))).toEqual([claimed.epoch]);

      // The lease expires and the reaper ends the run.
      expect(await store.expireRun("r1", claimed.epoch, { status: "failed" } as never, Date.now() + 120_000)).toBe(true);
      const before = (await graph.getState({ configurable: { thread_id: "t" } })).values;
      await expect(graph.invoke({ messages: [new HumanMessage("stale")] }, { configurable: { thread_id: "t", keel_fence: fence }, durability: "sync" })).rejects.toMatchObject({
        code: "KEEL_ERR_LEASE_FENCED",
      });
      expect((await graph.getState({ configurable: { thread_id: "t" } })).values).toEqual(before);
    } finally {
      await closeCheckpointer(checkpointer);
      await store.close();
    }
  });
});
