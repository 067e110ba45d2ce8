/**
 * A list serialized from its items' cached bytes (`list-bytes.ts`) is byte for byte what
 * JsonPlusSerializer's `dumpsTyped` gives for the whole list — for random lists of
 * messages, plain values, `undefined`, bytes, Maps and Sets, serialized fresh and again
 * from the cache, and for lists sharing items — and reads back equal; a custom serializer
 * serializes the list whole.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ListBytes } from "../../plugins/store-sql/checkpoints/list-bytes.js";

const text = fc.string({ maxLength: 12 });
const plain = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(undefined));
const item = fc.oneof(
  plain,
  text.map((content) => new HumanMessage({ content, id: `h-${content}` })),
  fc.record({ content: text, n: fc.integer({ min: 0, max: 3 }) }).map(({ content, n }) =>
    new AIMessage({ content, tool_calls: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: "read_file", args: { path: content, i } })) }),
  ),
  text.map((content) => new ToolMessage({ tool_call_id: "c0", name: "read_file", content })),
  fc.dictionary(text, plain, { maxKeys: 3 }),
  fc.uint8Array({ maxLength: 4 }),
  fc.array(fc.integer(), { maxLength: 3 }).map((xs) => new Set(xs)),
  fc.array(fc.tuple(text, fc.integer()), { maxLength: 3 }).map((xs) => new Map(xs)),
  fc.array(plain, { maxLength: 3 }),
);

describe("list bytes from item bytes", () => {
  it("equal JsonPlusSerializer's bytes for the whole list, fresh and from the cache, and read back equal", async () => {
    const serde = new JsonPlusSerializer();
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), async (list, picks) => {
        const lists = new ListBytes(serde);
        const whole = await serde.dumpsTyped(list);
        expect(await lists.dumpsTyped(list)).toEqual(whole);
        expect(await lists.dumpsTyped(list)).toEqual(whole);
        // A list sharing some of the items (cached) with new ones, in another order.
        const shared = [...picks.map((i) => list[i % Math.max(1, list.length)]), { fresh: true }];
        expect(await lists.dumpsTyped(shared)).toEqual(await serde.dumpsTyped(shared));
        expect(await serde.loadsTyped("json", (await lists.dumpsTyped(list))[1])).toEqual(await serde.loadsTyped("json", whole[1]));
      }),
      { numRuns: 200 },
    );
  });

  it("leave values that are not lists, and any other serializer, to the serializer", async () => {
    const calls: unknown[] = [];
    const custom: SerializerProtocol = {
      dumpsTyped: async (value) => (calls.push(value), ["custom", new TextEncoder().encode(String(JSON.stringify(value)))]),
      loadsTyped: async () => undefined,
    };
    const list = [new HumanMessage({ content: "hi", id: "h" }), 1];
    expect((await new ListBytes(custom).dumpsTyped(list))[0]).toBe("custom");
    expect(calls).toEqual([list]);
    const serde = new JsonPlusSerializer();
    expect(await new ListBytes(serde).dumpsTyped({ a: 1 })).toEqual(await serde.dumpsTyped({ a: 1 }));
    expect(await new ListBytes(serde).dumpsTyped(new Uint8Array([1, 2]))).toEqual(["bytes", new Uint8Array([1, 2])]);
  });
});
