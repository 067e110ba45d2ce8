/**
 * A checkpoint put again under its id replaces the first one: its header, metadata and
 * value rows (as LangGraph's savers replace it). On SQLite the insert of the header meets
 * its key and the update and the delete of the old value rows run only then
 * (`SqlStatement.otherwise`); PostgreSQL's put function does the same in one statement.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type Checkpoint, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { VALUES_TABLE } from "../../plugins/store-sql/checkpoints/schema.js";
import { backends } from "./backends.js";

function checkpoint(id: string, messages: unknown[]): Checkpoint {
  return { ...emptyCheckpoint(), id, channel_values: { messages }, channel_versions: { messages: messages.length } };
}
const metadata = (step: number): CheckpointMetadata => ({ source: "loop", step, parents: {} });
const config = (checkpointId?: string) => ({ configurable: { thread_id: "t", checkpoint_ns: "", ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } });

for (const backend of backends) {
  describe(`a checkpoint put again (${backend.name})`, () => {
    it("reads back as the second put, with only the second put's value rows", async () => {
      const { saver, sql, close } = await backend.open();
      try {
        const first = new HumanMessage({ content: "go", id: "m1" });
        const a = uuid6(0);
        const b = uuid6(1);
        await saver.put(config(), checkpoint(a, [first]), metadata(0), {});
        await saver.put(config(a), checkpoint(b, [first, new AIMessage({ content: "one", id: "m2" })]), metadata(1), {});
        // The same id again, from the same parent, with other values and metadata.
        await saver.put(config(a), checkpoint(b, [first, new AIMessage({ content: "two", id: "m3" })]), metadata(7), {});

        const tuple = await saver.getTuple(config(b));
        expect((tuple!.checkpoint.channel_values.messages as AIMessage[]).map((m) => [m.id, m.content])).toEqual([
          ["m1", "go"],
          ["m3", "two"],
        ]);
        expect(tuple!.metadata?.step).toBe(7);
        expect(tuple!.parentConfig?.configurable?.checkpoint_id).toBe(a);
        const rows = await sql(`SELECT channel, op FROM ${VALUES_TABLE} WHERE checkpoint_id = ?`, [b]);
        expect(rows).toHaveLength(1);
        expect((await saver.getTuple(config()))!.checkpoint.id).toBe(b);
      } finally {
        await close();
      }
    });
  });
}
