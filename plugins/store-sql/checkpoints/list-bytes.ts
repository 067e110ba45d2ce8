/**
 * A list's serialized bytes from its items' serialized bytes, each item serialized once
 * per process. With LangGraph's JsonPlusSerializer a list serializes to `[` + its items'
 * JSON joined by `,` + `]` (its replacer ignores the key, so an item serializes the same
 * in any list), and an item's JSON is cut from the serialization of `[item]`, so the bytes
 * are exactly what `dumpsTyped(list)` gives. The saver serializes a message when it is
 * written as a pending write, again in the step's splice, and again, with the whole
 * history, in every snapshot; with the bytes kept per item (a WeakMap: they go with the
 * item) each of those is a copy of bytes already made. The assumption is the saver's own:
 * a checkpointed value is not mutated in place afterwards.
 *
 * Any other serializer (a custom `serde`, e.g. encrypting) serializes the list whole.
 */
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c; // ,

export class ListBytes {
  private readonly items = new WeakMap<object, Uint8Array>();
  private readonly jsonPlus: boolean;

  constructor(private readonly serde: SerializerProtocol) {
    this.jsonPlus = serde instanceof JsonPlusSerializer;
  }

  /** `serde.dumpsTyped(value)`, through the item bytes when `value` is a list and the serializer is JsonPlus. */
  async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
    if (!this.jsonPlus || !Array.isArray(value)) return this.serde.dumpsTyped(value);
    const parts: Uint8Array[] = [];
    let length = 2 + Math.max(0, value.length - 1);
    for (const item of value) {
      // An item met before is looked up without an await (a snapshot is mostly such items).
      const bytes = (typeof item === "object" && item !== null && this.items.get(item)) || (await this.itemBytes(item));
      parts.push(bytes);
      length += bytes.byteLength;
    }
    const out = new Uint8Array(length);
    out[0] = OPEN;
    let at = 1;
    for (const [i, bytes] of parts.entries()) {
      if (i > 0) out[at++] = COMMA;
      out.set(bytes, at);
      at += bytes.byteLength;
    }
    out[at] = CLOSE;
    return ["json", out];
  }

  private async itemBytes(item: unknown): Promise<Uint8Array> {
    const key = typeof item === "object" && item !== null ? item : undefined;
    const cached = key && this.items.get(key);
    if (cached) return cached;
    const [type, list] = await this.serde.dumpsTyped([item]);
    if (type !== "json" || list[0] !== OPEN || list[list.byteLength - 1] !== CLOSE) throw new Error(`JsonPlusSerializer serialized a list as ${type}, not a JSON array`);
    const bytes = list.subarray(1, list.byteLength - 1);
    if (key) this.items.set(key, bytes);
    return bytes;
  }
}
