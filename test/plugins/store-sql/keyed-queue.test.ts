import { describe, expect, it } from "vitest";
import { KeyedQueue } from "../../../plugins/store-sql/keyed-queue.js";

/** A task the test finishes (or fails) when it says so. */
function gate(): { promise: Promise<void>; open(): void; fail(error: Error): void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

describe("KeyedQueue (store-sql's per-thread admission queue)", () => {
  it("runs tasks of one key one at a time in call order, other keys meanwhile, and goes on after a failure", async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const first = gate();
    const a1 = queue.run("t1", async () => (log.push("a1 start"), await first.promise, log.push("a1 end"), "a1"));
    const a2 = queue.run("t1", async () => (log.push("a2"), "a2"));
    const b1 = queue.run("t2", async () => (log.push("b1"), "b1"));
    expect(await b1).toBe("b1");
    expect(log).toEqual(["a1 start", "b1"]);
    first.fail(new Error("refused"));
    await expect(a1).rejects.toThrow("refused");
    expect(await a2).toBe("a2");
    expect(log).toEqual(["a1 start", "b1", "a2"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
  });
});
