import { describe, expect, it } from "vitest";
import { PathLocks } from "../../../plugins/read-before-write/index.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("PathLocks", () => {
  it("runs holders of one key one after another, in arrival order", async () => {
    const locks = new PathLocks();
    const log: string[] = [];
    const gate = deferred();
    const first = locks.run("k", async () => {
      log.push("first:start");
      await gate.promise;
      log.push("first:end");
      return 1;
    });
    const second = locks.run("k", async () => {
      log.push("second:start");
      return 2;
    });
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["first:start"]);
    gate.resolve();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(["first:start", "first:end", "second:start"]);
    expect(locks.size).toBe(0);
  });

  it("does not block other keys", async () => {
    const locks = new PathLocks();
    const gate = deferred();
    const held = locks.run("a", () => gate.promise);
    expect(await locks.run("b", async () => "b done")).toBe("b done");
    gate.resolve();
    await held;
  });

  it("releases the key when the holder throws", async () => {
    const locks = new PathLocks();
    await expect(locks.run("k", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await locks.run("k", async () => "next")).toBe("next");
    expect(locks.size).toBe(0);
  });
});
