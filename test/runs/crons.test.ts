import { MemoryCronStore } from "../../kernel/runs/cron-memory-store.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describe, expect, it } from "vitest";
import { CronScheduler } from "../../kernel/runs/cron-scheduler.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { ScriptedExecutor } from "../plugins/gateway/harness.js";
import { cronRecord, describeCrons } from "./cron-suite.js";
import { ManualClock, START_MS } from "./run-manager-harness.js";

// Memory: one store instance shared by both workers, as one process would.
describeCrons("memory", async () => {
  const store = new MemoryRunStore();
  const crons = new MemoryCronStore();
  return { runStores: [store, store], cronStores: [crons, crons], dispose: async () => undefined };
});

describe("the cron scheduler and shutdown", () => {
  it("a worker that is shutting down claims no tick: the cron stays due and another worker fires it", async () => {
    const store = new MemoryRunStore();
    const crons = new MemoryCronStore();
    const clock = new ManualClock();
    const bridge = new MemoryStreamBridge();
    const executor = new ScriptedExecutor();
    const worker = (id: string) => new RunManager({ store, bridge, executor, clock, workerId: id, shutdownGraceMs: 0, log: () => undefined });
    const [leaving, staying] = [worker("leaving"), worker("staying")];
    await store.createThread({ threadId: "t", owner: "alice", status: "idle", metadata: {}, createdAt: new Date(START_MS).toISOString(), updatedAt: new Date(START_MS).toISOString() });
    await crons.createCron(cronRecord({ cronId: "c", threadId: "t", schedule: "* * * * *" }));
    clock.advance(60_000);
    await leaving.shutdown();
    expect(await new CronScheduler({ crons, runs: leaving, store, clock, log: () => undefined }).tick()).toEqual([]);
    expect((await crons.getCron("c"))?.nextRunAt).toBe(new Date(START_MS + 60_000).toISOString());
    const fires = await new CronScheduler({ crons, runs: staying, store, clock, log: () => undefined }).tick();
    expect(fires.map((f) => ("run" in f ? f.run.user : f.skipped))).toEqual(["alice"]);
    await staying.shutdown();
  });
});
