/**
 * On PostgreSQL a checkpoint write is one round trip: a fenced `put` (snapshot or delta)
 * and a fenced `putWrites` (ordinary and special writes) each send exactly one statement
 * (the functions of postgres-functions.ts), and still refuse what the fence refuses and
 * re-base a delta whose parent went away. The lease's expiry boundary is judged the same
 * on both backends (expired when `lease_expires_at` ≤ the holder's clock).
 */
import { HumanMessage, AIMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { numberPlaceholders, PostgresExecutor, type PgClient, type PgNamedQuery, type PgPool } from "../../plugins/store-sql/checkpoints/postgres-executor.js";
import { backends, pgReachable, pgSchemaPool } from "./backends.js";

const NOW = Date.parse("2030-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const RUNS_DDL = `CREATE TABLE keel_runs (run_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, lease_expires_at TEXT)`;

function checkpointWith(messages: unknown[], parent?: Checkpoint): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: Number(parent?.channel_versions.messages ?? 0) + 1 } };
}

/** A pool that counts every statement sent (on the pool or on a checked-out client) and every checkout. */
function countingPool(pool: PgPool): { pool: PgPool; sent: Array<string | PgNamedQuery>; checkouts: () => number } {
  const sent: Array<string | PgNamedQuery> = [];
  let checkouts = 0;
  return {
    sent,
    checkouts: () => checkouts,
    pool: {
      query: (sql, params) => (sent.push(sql), pool.query(sql, params)),
      connect: async () => {
        checkouts += 1;
        const client = await pool.connect();
        const counted: PgClient = {
          query: (sql, params) => (sent.push(sql), client.query(sql, params)),
          release: (error) => client.release(error),
          on: (event, listener) => client.on(event, listener),
          removeListener: (event, listener) => client.removeListener(event, listener),
        };
        return counted;
      },
      end: () => pool.end(),
      on: (event, listener) => pool.on(event, listener),
    },
  };
}

describe.skipIf(!pgReachable)("checkpoint writes on PostgreSQL: one round trip each", () => {
  it("a fenced put (snapshot, then delta) and a fenced putWrites (ordinary and special writes) each send one statement and no transaction", async () => {
    const { pool, drop } = await pgSchemaPool();
    const counting = countingPool(pool);
    const saver = new KeelCheckpointSaver(new PostgresExecutor(counting.pool), { now: () => NOW });
    try {
      await saver.setup();
      await pool.query(RUNS_DDL);
      await pool.query(numberPlaceholders(`INSERT INTO keel_runs VALUES (?, ?, ?, ?)`), ["run-1", 2, "running", iso(NOW + 30_000)]);
      const fence = { runId: "run-1", epoch: 2 };
      const sentBefore = counting.sent.length;
      const checkoutsBefore = counting.checkouts();

      const first = checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]);
      const c1 = await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "", keel_fence: fence } }, first, { source: "input", step: -1, parents: {} }, {});
      expect(counting.sent.length - sentBefore).toBe(1);
      const second = checkpointWith([...(first.channel_values.messages as unknown[]), new AIMessage({ content: "yo", id: "m2" })], first);
      const c2 = await saver.put({ configurable: { ...c1.configurable, keel_fence: fence } }, second, { source: "loop", step: 0, parents: {} }, {});
      expect(counting.sent.length - sentBefore).toBe(2);
      await saver.putWrites(
        { configurable: { ...c2.configurable, keel_fence: fence } },
        [
          ["messages", [new AIMessage({ content: "pending", id: "m3" })]],
          ["__error__", { message: "first" }],
          ["__error__", { message: "second replaces it" }],
        ],
        "task-1",
      );
      expect(counting.sent.length - sentBefore).toBe(3);
      expect(counting.checkouts() - checkoutsBefore).toBe(0);
      // Each a named prepared statement, named after its function (parsed and planned once per connection).
      expect(counting.sent.slice(sentBefore).map((q) => (typeof q === "string" ? q : q.name))).toEqual(["keel_ckpt_put_v2", "keel_ckpt_put_v2", "keel_ckpt_put_writes_v1"]);

      // What the one statements wrote: a snapshot, a splice, the writes (the special one replaced in order), all under epoch 2.
      const ops = await pool.query(`SELECT checkpoint_id, op, epoch FROM keel_ckpt_values ORDER BY checkpoint_id`);
      expect(ops.rows.map((r) => [r.checkpoint_id, r.op, Number(r.epoch)])).toEqual([
        [first.id, "set", 2],
        [second.id, "splice", 2],
      ]);
      const tuple = (await saver.getTuple({ configurable: { thread_id: "t" } }))!;
      expect(tuple.checkpoint.channel_values.messages).toEqual(second.channel_values.messages);
      expect(tuple.pendingWrites).toEqual([
        ["task-1", "__error__", { message: "second replaces it" }],
        ["task-1", "messages", [new AIMessage({ content: "pending", id: "m3" })]],
      ]);

      // A refused write is one statement too, and writes nothing.
      await pool.query(`UPDATE keel_runs SET epoch = 3`);
      const refusedAt = counting.sent.length;
      const third = checkpointWith([...(second.channel_values.messages as unknown[]), new HumanMessage({ content: "late", id: "m4" })], second);
      await expect(saver.put({ configurable: { ...c2.configurable, keel_fence: fence } }, third, { source: "loop", step: 1, parents: {} }, {})).rejects.toMatchObject({
        code: "KEEL_ERR_LEASE_FENCED",
        message: expect.stringMatching(/lease is at epoch 3/),
      });
      await expect(saver.putWrites({ configurable: { ...c2.configurable, keel_fence: fence } }, [["messages", "late"]], "task-2")).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED" });
      expect(counting.sent.length - refusedAt).toBe(2);
      expect(Number((await pool.query(`SELECT COUNT(*) AS n FROM keel_ckpt_checkpoints`)).rows[0]!.n)).toBe(2);
      expect(Number((await pool.query(`SELECT COUNT(*) AS n FROM keel_ckpt_writes`)).rows[0]!.n)).toBe(2);
    } finally {
      await saver.close();
      await drop();
    }
  });

  it("with preparedStatements: false the calls go as plain text; named calls keep working after the functions are replaced", async () => {
    const { pool, drop } = await pgSchemaPool();
    const counting = countingPool(pool);
    const plain = new KeelCheckpointSaver(new PostgresExecutor(counting.pool, false, { preparedStatements: false }));
    const named = new KeelCheckpointSaver(new PostgresExecutor(pool));
    try {
      await plain.setup();
      const first = checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]);
      const sentBefore = counting.sent.length;
      const c1 = await plain.put({ configurable: { thread_id: "plain", checkpoint_ns: "" } }, first, { source: "input", step: -1, parents: {} }, {});
      await plain.putWrites(c1, [["messages", "w"]], "task-1");
      expect(counting.sent.slice(sentBefore).map((q) => typeof q)).toEqual(["string", "string"]);
      // A named call, then the functions replaced (a worker starting runs the DDL again), then named calls again.
      const n1 = await named.put({ configurable: { thread_id: "named", checkpoint_ns: "" } }, first, { source: "input", step: -1, parents: {} }, {});
      await new KeelCheckpointSaver(new PostgresExecutor(pool)).setup();
      const second = checkpointWith([...(first.channel_values.messages as unknown[]), new AIMessage({ content: "yo", id: "m2" })], first);
      const n2 = await named.put(n1, second, { source: "loop", step: 0, parents: {} }, {});
      await named.putWrites(n2, [["messages", "w2"]], "task-2");
      const tuple = (await named.getTuple({ configurable: { thread_id: "named" } }))!;
      expect(tuple.checkpoint.channel_values.messages).toEqual(second.channel_values.messages);
      expect(tuple.pendingWrites).toEqual([["task-2", "messages", "w2"]]);
      expect((await plain.getTuple({ configurable: { thread_id: "plain" } }))!.pendingWrites).toEqual([["task-1", "messages", "w"]]);
    } finally {
      await plain.close();
      await named.close();
      await drop();
    }
  });

  it("a delta whose cached parent was deleted elsewhere is refused by the statement and stored as a snapshot instead", async () => {
    const { pool, drop } = await pgSchemaPool();
    const saver = new KeelCheckpointSaver(new PostgresExecutor(pool));
    try {
      await saver.setup();
      const first = checkpointWith([new HumanMessage({ content: "hi", id: "m1" })]);
      const c1 = await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "" } }, first, { source: "input", step: -1, parents: {} }, {});
      const second = checkpointWith([...(first.channel_values.messages as unknown[]), new AIMessage({ content: "yo", id: "m2" })], first);
      const c2 = await saver.put(c1, second, { source: "loop", step: 0, parents: {} }, {});
      // Another process deletes the thread's rows behind this saver's cache.
      for (const table of ["keel_ckpt_checkpoints", "keel_ckpt_values"]) await pool.query(`DELETE FROM ${table} WHERE thread_id = 't'`);
      const third = checkpointWith([...(second.channel_values.messages as unknown[]), new HumanMessage({ content: "again", id: "m3" })], second);
      await saver.put(c2, third, { source: "loop", step: 1, parents: {} }, {});
      const rows = (await pool.query(`SELECT checkpoint_id, snapshot_id, depth FROM keel_ckpt_checkpoints WHERE thread_id = 't'`)).rows;
      expect(rows).toEqual([{ checkpoint_id: third.id, snapshot_id: third.id, depth: 0 }]);
      expect((await saver.getTuple({ configurable: { thread_id: "t" } }))!.checkpoint.channel_values.messages).toEqual(third.channel_values.messages);
    } finally {
      await saver.close();
      await drop();
    }
  });
});

for (const backend of backends) {
  describe(`the lease's expiry boundary on ${backend.name}`, () => {
    it("a lease expiring at the holder's clock refuses the write; one expiring a millisecond later admits it", async () => {
      let now = NOW;
      const { saver, sql, close } = await backend.open({ now: () => now });
      try {
        await sql(RUNS_DDL);
        await sql(`INSERT INTO keel_runs (run_id, epoch, status, lease_expires_at) VALUES (?, ?, ?, ?)`, ["run-1", 1, "running", iso(NOW)]);
        const config = { configurable: { thread_id: "t", checkpoint_ns: "", keel_fence: { runId: "run-1", epoch: 1 } } };
        await expect(saver.put(config, checkpointWith([]), { source: "input", step: -1, parents: {} }, {})).rejects.toMatchObject({ code: "KEEL_ERR_LEASE_FENCED", message: expect.stringMatching(/lease expired/) });
        now = NOW - 1;
        await saver.put(config, checkpointWith([]), { source: "input", step: -1, parents: {} }, {});
        expect((await sql(`SELECT COUNT(*) AS n FROM keel_ckpt_checkpoints`)).map((r) => Number(r.n))).toEqual([1]);
      } finally {
        await close();
      }
    });
  });
}
