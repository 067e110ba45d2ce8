/**
 * `keel serve --stream-memory-mb N`: the in-memory stream bridge's byte budget (default
 * 64 MiB), parsed by resolveServeOptions and given to the bridge the services open.
 */
import { describe, expect, it } from "vitest";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { openRunServices } from "../../tools/serve/run-services.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";

describe("keel serve --stream-memory-mb", () => {
  it("defaults to 64 MiB and takes an integer number of MiB", () => {
    expect(resolveServeOptions({}, {}, "/w").streamMemoryBytes).toBe(64 * 1024 * 1024);
    expect(resolveServeOptions({ "stream-memory-mb": "2" }, {}, "/w").streamMemoryBytes).toBe(2 * 1024 * 1024);
    for (const bad of ["0", "-1", "1.5", "lots", "1048577"]) {
      expect(() => resolveServeOptions({ "stream-memory-mb": bad }, {}, "/w")).toThrow(expect.objectContaining({ code: "KEEL_ERR_CLI_USAGE" }));
    }
  });

  it("bounds the bridge the server opens: 2.25 MiB of events into a 2 MiB budget keep at most 2 MiB", async () => {
    const options = resolveServeOptions({ db: "sqlite::memory:", "stream-memory-mb": "2" }, {}, "/w");
    const services = await openRunServices({ db: options.db, streamMemoryBytes: options.streamMemoryBytes });
    try {
      const bridge = services.bridge as MemoryStreamBridge;
      expect(bridge).toBeInstanceOf(MemoryStreamBridge);
      for (let run = 0; run < 3; run++) {
        for (let i = 0; i < 3; i++) await bridge.publish(`run-${run}`, "values", { text: "x".repeat(256 * 1024) });
        await bridge.end(`run-${run}`);
      }
      const { bytes, runs } = bridge.stats();
      expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
      expect(bytes).toBeGreaterThan(1024 * 1024);
      // The run that ended first went first.
      expect(await bridge.read("run-0")).toEqual([]);
      expect(runs).toBe(2);
    } finally {
      await services.close();
    }
  });
});
