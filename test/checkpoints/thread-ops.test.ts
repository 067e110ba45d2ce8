/**
 * Thread operations on KeelCheckpointSaver: forks keep their parents and namespaces,
 * `copyThread` copies a history that reads back identically, `pruneThread` keeps the
 * newest checkpoints readable exactly as before (re-rooting deltas whose base it
 * deleted), `deleteThread` purges every row of the thread.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import type { KeelCheckpointSaver } from "../../plugins/store-sql/index.js";
import { backends } from "./backends.js";

function chatGraph(checkpointer: KeelCheckpointSaver, prefix: string) {
  let n = 0;
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", (s: { messages: BaseMessage[] }) => ({ messages: [new AIMessage({ content: `reply ${++n} to ${String(s.messages.at(-1)!.content)}`, id: `${prefix}-${n}` })] }))
    .addEdge("__start__", "reply")
    .compile({ checkpointer });
}

async function history(saver: KeelCheckpointSaver, threadId: string, ns = ""): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: ns } })) out.push(t);
  return out;
}

const withoutThread = (t: CheckpointTuple) => ({ id: t.config.configurable?.checkpoint_id, parent: t.parentConfig?.configurable?.checkpoint_id, checkpoint: t.checkpoint, metadata: t.metadata, pendingWrites: t.pendingWrites });

for (const backend of backends) {
  describe(`thread operations on ${backend.name}`, () => {
    it("forks keep their parent; copyThread copies everything; pruneThread keeps the newest exactly; deleteThread purges", async () => {
      const { saver, sql, close } = await backend.open({ snapshotEvery: 3 });
      try {
        const graph = chatGraph(saver, "g1");
        const config = { configurable: { thread_id: "a" } };
        for (let i = 1; i <= 6; i += 1) await graph.invoke({ messages: [new HumanMessage({ content: `q${i}`, id: `h-${i}` })] }, { ...config, durability: "sync" });
        // Fork from an older checkpoint (time travel): a new branch whose parent is that checkpoint.
        const full = await history(saver, "a");
        const old = full[5]!;
        const forked = await graph.invoke({ messages: [new HumanMessage({ content: "branch", id: "h-b" })] }, { configurable: { thread_id: "a", checkpoint_id: old.config.configurable!.checkpoint_id }, durability: "sync" });
        expect(forked.messages.map((m: BaseMessage) => m.content).slice(-2)).toEqual(["branch", expect.stringContaining("to branch")]);
        const afterFork = await history(saver, "a");
        const branchHead = afterFork[0]!;
        const branchInput = afterFork.find((t) => t.metadata?.source === "input")!;
        expect(branchInput.parentConfig?.configurable?.checkpoint_id).toBe(old.config.configurable!.checkpoint_id);
        // The branch's newest checkpoints chain back to the input, whose parent is the old checkpoint.
        const branchIds = afterFork.slice(0, afterFork.indexOf(branchInput) + 1).map((t) => t.config.configurable!.checkpoint_id);
        for (let i = 0; i + 1 < branchIds.length; i += 1) expect(afterFork[i]!.parentConfig?.configurable?.checkpoint_id).toBe(branchIds[i + 1]);
        // Another namespace of the same thread is kept apart.
        await saver.put({ configurable: { thread_id: "a", checkpoint_ns: "child:1" } }, { ...branchHead.checkpoint, id: "1f000000-0000-6000-8000-000000000001" }, { source: "loop", step: 0, parents: {} }, {});
        expect((await history(saver, "a", "child:1")).map((t) => t.config.configurable?.checkpoint_ns)).toEqual(["child:1"]);

        await saver.copyThread("a", "b");
        expect((await history(saver, "b")).map(withoutThread)).toEqual(afterFork.map(withoutThread));
        expect((await history(saver, "b"))[0]!.config.configurable?.thread_id).toBe("b");
        await expect(saver.copyThread("a", "b")).rejects.toMatchObject({ code: "KEEL_ERR_CHECKPOINT_THREAD_EXISTS" });

        await saver.pruneThread("b", 4);
        const kept = await history(saver, "b");
        expect(kept.map(withoutThread)).toEqual(afterFork.slice(0, 4).map(withoutThread));
        for (const t of kept) expect(withoutThread((await saver.getTuple(t.config))!)).toEqual(withoutThread(t));
        // Continuing the pruned thread still works (from a snapshot, as its cached head was dropped).
        const graphB = chatGraph(saver, "g2");
        const next = await graphB.invoke({ messages: [new HumanMessage({ content: "after prune", id: "h-p" })] }, { configurable: { thread_id: "b" }, durability: "sync" });
        expect(next.messages.map((m: BaseMessage) => m.content)).toEqual([...(kept[0]!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.content), "after prune", expect.stringContaining("to after prune")]);
        // "a" is untouched by the copy's prune.
        expect((await history(saver, "a")).map(withoutThread)).toEqual(afterFork.map(withoutThread));

        await saver.deleteThread("a");
        for (const table of ["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes"]) {
          expect(Number((await sql(`SELECT COUNT(*) AS n FROM ${table} WHERE thread_id = ?`, ["a"]))[0]!.n)).toBe(0);
        }
        expect(await saver.getTuple({ configurable: { thread_id: "a" } })).toBeUndefined();
        expect((await history(saver, "b")).length).toBeGreaterThan(4);
      } finally {
        await close();
      }
    });
  });
}
