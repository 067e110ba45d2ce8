/**
 * ParkedWrites on its own: a held `putWrites` is taken by a `put` in the same macrotask,
 * written alone when none comes, waits out a `put` of its thread still in flight (and is
 * taken by the `put` chained after it), and is written alone after a few in-flight puts in
 * a row rather than held for ever.
 */
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ParkedWrites } from "../../plugins/store-sql/checkpoints/parked-writes.js";
import type { PendingWritesWrite } from "../../plugins/store-sql/checkpoints/sql-executor.js";

const write = (checkpointId: string, taskId: string): PendingWritesWrite => ({
  threadId: "t",
  ns: "",
  checkpointId,
  taskId,
  taskPath: "",
  rows: [{ idx: 0, channel: "messages", type: "json", value: new Uint8Array([49]), special: false }],
});

function parked(inFlight: () => Promise<unknown> | undefined = () => undefined) {
  const alone: string[] = [];
  return { alone, writes: new ParkedWrites(async (w) => void alone.push(w.taskId), inFlight) };
}

describe("parked writes", () => {
  it("a put in the same macrotask takes the writes; without one they are written alone, in order", async () => {
    const { alone, writes } = parked();
    const a = writes.park("t", "", "c1", undefined, Promise.resolve(write("c1", "a")));
    const riding = writes.take("t", "", "c1", undefined)!;
    expect((await riding.writes()).map((w) => w.taskId)).toEqual(["a"]);
    riding.settle();
    await a;
    const b = writes.park("t", "", "c2", undefined, Promise.resolve(write("c2", "b")));
    const c = writes.park("t", "", "c2", undefined, Promise.resolve(write("c2", "c")));
    await Promise.all([b, c]);
    expect(alone).toEqual(["b", "c"]);
    expect(writes.take("t", "", "c2", undefined)).toBeUndefined();
  });

  it("waits out a put of its thread in flight, and the put chained after it takes the writes", async () => {
    let release!: () => void;
    let current: Promise<unknown> | undefined = new Promise<void>((r) => (release = r));
    const { alone, writes } = parked(() => current);
    const held = writes.park("t", "", "c1", undefined, Promise.resolve(write("c1", "a")));
    for (let i = 0; i < 5; i++) await tick();
    expect(alone).toEqual([]);
    current = undefined;
    release();
    await Promise.resolve();
    const riding = writes.take("t", "", "c1", undefined);
    expect(riding).toBeDefined();
    riding!.settle();
    await held;
    expect(alone).toEqual([]);
  });

  it("is written alone after a few in-flight puts in a row", async () => {
    const { alone, writes } = parked(() => new Promise((r) => setTimeout(r, 1)));
    await writes.park("t", "", "c1", undefined, Promise.resolve(write("c1", "a")));
    expect(alone).toEqual(["a"]);
  });

  it("a refused put rejects the writes it took; a write whose rows failed to serialize fails alone", async () => {
    const { writes } = parked();
    const ok = writes.park("t", "", "c1", undefined, Promise.resolve(write("c1", "a")));
    const broken = writes.park("t", "", "c1", undefined, Promise.reject(new Error("cannot serialize")));
    const riding = writes.take("t", "", "c1", undefined)!;
    expect((await riding.writes()).map((w) => w.taskId)).toEqual(["a"]);
    await expect(broken).rejects.toThrow("cannot serialize");
    riding.settle(new Error("fenced"));
    await expect(ok).rejects.toThrow("fenced");
  });
});
