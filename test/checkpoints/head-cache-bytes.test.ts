/**
 * The saver's head cache (the values it diffs the next checkpoint against) is bounded in
 * bytes as well as in threads: a long-lived server with large thread values (a 900 KiB
 * input) does not keep 256 of them. A thread whose head fell out of the cache gets its
 * next checkpoint as a snapshot (depth 0) instead of a delta; reads are unchanged.
 */
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { DEFAULT_HEAD_CACHE_BYTES } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { CHECKPOINTS_TABLE } from "../../plugins/store-sql/checkpoints/schema.js";
import { sqliteBackend } from "./backends.js";

function checkpoint(messages: HumanMessage[]): Checkpoint {
  const base = emptyCheckpoint();
  return { ...base, id: uuid6(0), channel_values: { messages }, channel_versions: { messages: messages.length } };
}

describe("KeelCheckpointSaver head cache bytes", () => {
  it("defaults to 32 MiB", () => {
    expect(DEFAULT_HEAD_CACHE_BYTES).toBe(32 * 1024 * 1024);
  });

  it("a head over the byte budget is not kept: the next step is a snapshot; small heads still get deltas", async () => {
    const { saver, sql, close } = await sqliteBackend.open({ headCacheBytes: 8 * 1024 });
    try {
      const step = async (threadId: string, parentId: string | null, messages: HumanMessage[]) => {
        const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parentId ? { checkpoint_id: parentId } : {}) } };
        return (await saver.put(config, checkpoint(messages), { source: "loop", step: messages.length, parents: {} }, {})).configurable!.checkpoint_id as string;
      };
      const big = [new HumanMessage({ content: "b".repeat(20_000), id: "big" })];
      const small = [new HumanMessage({ content: "small", id: "s1" })];
      const bigFirst = await step("big", null, big);
      const bigSecond = await step("big", bigFirst, [...big, new HumanMessage({ content: "more", id: "b2" })]);
      const smallFirst = await step("small", null, small);
      const smallSecond = await step("small", smallFirst, [...small, new HumanMessage({ content: "more", id: "s2" })]);
      const depth = async (id: string) => (await sql(`select depth from ${CHECKPOINTS_TABLE} where checkpoint_id = ?`, [id]))[0]!.depth;
      expect([await depth(bigFirst), await depth(bigSecond), await depth(smallFirst), await depth(smallSecond)]).toEqual([0, 0, 0, 1]);
      const read = await saver.getTuple({ configurable: { thread_id: "big", checkpoint_ns: "" } });
      expect((read!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id)).toEqual(["big", "b2"]);
    } finally {
      await close();
    }
  });

  it("evicts the least recently written thread when the bytes are over the budget", async () => {
    const { saver, sql, close } = await sqliteBackend.open({ headCacheBytes: 12 * 1024 });
    try {
      const put = async (threadId: string, parentId: string | null, messages: HumanMessage[]) => {
        const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parentId ? { checkpoint_id: parentId } : {}) } };
        return (await saver.put(config, checkpoint(messages), { source: "loop", step: 1, parents: {} }, {})).configurable!.checkpoint_id as string;
      };
      const m = (id: string) => new HumanMessage({ content: id.repeat(5_000 / id.length), id });
      const a1 = await put("a", null, [m("a")]); // ~5 KB cached
      const b1 = await put("b", null, [m("b")]); // ~10 KB cached
      const c1 = await put("c", null, [m("c")]); // over 12 KB: `a` (the oldest) goes
      const depth = async (id: string) => (await sql(`select depth from ${CHECKPOINTS_TABLE} where checkpoint_id = ?`, [id]))[0]!.depth;
      const a2 = await put("a", a1, [m("a"), new HumanMessage({ content: "x", id: "x" })]);
      const c2 = await put("c", c1, [m("c"), new HumanMessage({ content: "y", id: "y" })]);
      expect([await depth(a2), await depth(c2)]).toEqual([0, 1]);
      expect(b1).toBeTruthy();
    } finally {
      await close();
    }
  });
});
