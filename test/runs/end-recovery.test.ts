/**
 * Always an `end` (kernel/runs/README.md, "Always an end"): a run whose terminal record was
 * written but whose `end` could not be published — the bridge refused it, or the worker
 * died between the two — is answered by `join` from its record, and the recovery sweep
 * publishes its final values and `end` once the bridge takes writes again. On the memory
 * bridge and, under KEEL_TEST_REDIS_URL, on Redis (run ids of their own).
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { KeelError } from "../../kernel/errors.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager, type RunManagerOptions } from "../../kernel/runs/run-manager.js";
import type { ControlMessage, PublishOptions, StreamBridge, StreamEvent, SubscribeOptions } from "../../kernel/runs/types.js";
import { createRedisStreamBridge } from "../../plugins/stream-redis/index.js";
import { FakeExecutor, ManualClock, request, until } from "./run-manager-harness.js";
import { redisUnreachable, TEST_REDIS_URL } from "../redis-probe.js";

const redisUrl = TEST_REDIS_URL;
const redisMissing = await redisUnreachable(redisUrl);
if (redisMissing !== null && process.env.CI !== "true") console.warn(`skipping the Redis variants of end recovery: ${redisMissing}`);

/** A bridge whose writes of `end` (or of everything) are refused while told so, like a Redis at maxmemory. */
class RefusingBridge implements StreamBridge {
  refuse: "nothing" | "end" | "writes" = "nothing";
  constructor(readonly inner: StreamBridge) {}
  get orderedPublish(): boolean | undefined {
    return this.inner.orderedPublish;
  }
  private refused(what: string): Promise<never> {
    return Promise.reject(new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", `the test bridge refuses ${what}`));
  }
  publish(runId: string, event: string, data: unknown, options?: PublishOptions): Promise<StreamEvent> {
    return this.refuse === "writes" ? this.refused(`\`${event}\``) : this.inner.publish(runId, event, data, options);
  }
  end(runId: string, options?: PublishOptions): Promise<StreamEvent> {
    return this.refuse === "nothing" ? this.inner.end(runId, options) : this.refused("`end`");
  }
  subscribe(runId: string, options?: SubscribeOptions): AsyncIterable<StreamEvent> {
    return this.inner.subscribe(runId, options);
  }
  read(runId: string): Promise<StreamEvent[]> {
    return this.inner.read(runId);
  }
  deleteRuns(runIds: readonly string[]): Promise<void> {
    return this.inner.deleteRuns!(runIds);
  }
  publishControl(runId: string, message: ControlMessage): Promise<void> {
    return this.inner.publishControl(runId, message);
  }
  onControl(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>> {
    return this.inner.onControl(runId, handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

function worker(bridge: StreamBridge, store: MemoryRunStore, clock: ManualClock, logs: string[], overrides: Partial<RunManagerOptions> = {}) {
  const executor = new FakeExecutor();
  executor.threadState = { messages: [{ type: "ai", content: "final" }], __loop: { hidden: true } };
  let n = 0;
  const manager = new RunManager({
    store,
    bridge,
    executor,
    clock,
    shutdownGraceMs: 0,
    joinRecheckMs: 10,
    newRunId: () => `end-recovery-${randomUUID()}-${++n}`,
    log: (message) => logs.push(message),
    ...overrides,
  });
  closing.push(() => manager.shutdown());
  return { manager, executor };
}

describe.each([
  ["memory", async () => new MemoryStreamBridge() as StreamBridge, false],
  ["Redis", async () => createRedisStreamBridge(redisUrl, { blockMs: 100 }) as StreamBridge, true],
] as const)("lost ends on the %s bridge", (_name, makeBridge, needsRedis) => {
  const skip = needsRedis && redisMissing !== null;

  it.skipIf(skip)("a refused `end`: join answers from the record, the log does not blame the reaper, the sweep publishes values and `end` once writes are taken", async () => {
    const inner = await makeBridge();
    closing.push(() => inner.close());
    const bridge = new RefusingBridge(inner);
    const store = new MemoryRunStore();
    const clock = new ManualClock();
    const logs: string[] = [];
    const { manager, executor } = worker(bridge, store, clock, logs);
    await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: new Date(clock.now()).toISOString(), updatedAt: new Date(clock.now()).toISOString() });

    const run = await manager.createOrReject("t1", request("go"), { user: "alice" });
    await until(() => executor.calls.length === 1, "the run started");
    executor.calls[0]!.io.emit("custom", { step: 1 });
    await until(async () => (await inner.read(run.runId)).some((e) => e.event === "custom"), "the run's event on the stream");
    bridge.refuse = "end";
    executor.calls[0]!.finish();
    await until(async () => (await store.getRun(run.runId))?.status === "success", "the terminal record");
    await until(() => logs.some((l) => l.includes("after its terminal record")), "the failure logged");
    expect(logs.filter((l) => l.includes("the reaper marks it failed"))).toEqual([]);
    expect(logs.find((l) => l.includes("after its terminal record"))).toContain("the recovery sweep publishes its final events and `end`");
    expect((await inner.read(run.runId)).map((e) => e.event)).toEqual(["metadata", "custom"]);

    // A join does not hang on the lost `end`: it answers from the terminal record.
    expect(await manager.join(run.runId)).toMatchObject({ runId: run.runId, status: "success" });

    // Within the grace period the sweep leaves the run alone; after it, a refused write is retried.
    expect((await manager.recoverOnce()).ends).toBe(0);
    clock.advance(6_000);
    bridge.refuse = "writes";
    expect((await manager.recoverOnce()).ends).toBe(0);
    expect(logs.some((l) => l.includes("publishing the lost `end` failed"))).toBe(true);
    bridge.refuse = "nothing";
    expect((await manager.recoverOnce()).ends).toBe(1);
    const events = await inner.read(run.runId);
    expect(events.map((e) => e.event)).toEqual(["metadata", "custom", "values", "end"]);
    expect(events[2]!.data).toEqual({ messages: [{ type: "ai", content: "final" }] }); // `__` keys are not values
    expect(run.epoch).toBe(1);
    expect(events.at(-1)!.epoch).toBe(run.epoch); // under the run's lease epoch
    expect((await manager.recoverOnce()).ends).toBe(0);
    expect(logs.some((l) => l.includes("the recovery sweep published its final events"))).toBe(true);
  });

  it.skipIf(skip)("a worker that died between the record and the stream: another worker's sweep publishes `error` and `end` for the failed run", async () => {
    const bridge = await makeBridge();
    closing.push(() => bridge.close());
    const store = new MemoryRunStore();
    const clock = new ManualClock();
    const logs: string[] = [];
    const now = () => new Date(clock.now()).toISOString();
    await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now(), updatedAt: now() });
    // The dead worker: claimed, published metadata, wrote its terminal record, and died before `end`.
    const runId = `end-recovery-dead-${randomUUID()}`;
    await store.admitRun({ runId, threadId: "t1", assistantId: "lead", status: "pending", multitaskStrategy: "reject", epoch: 0, createdAt: now(), updatedAt: now(), user: "alice", request: request("go") });
    const claimed = (await store.claimNext("t1", "dead", 30_000, clock.now()))!;
    await bridge.publish(runId, "metadata", { run_id: runId, thread_id: "t1", attempt: claimed.epoch }, { epoch: claimed.epoch });
    const outcome = { contract: "status", version: 2, status: "failed", stopReasons: [], text: "boom", error: { type: "tool_failed", message: "boom", retryable: false } } as const;
    expect(await store.completeRun(runId, "dead", claimed.epoch, { status: "error", outcome }, now())).toBe(true);

    const { manager } = worker(bridge, store, clock, logs);
    clock.advance(6_000);
    expect((await manager.recoverOnce()).ends).toBe(1);
    const events = await bridge.read(runId);
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "error", "end"]);
    expect(events[2]!.data).toEqual({ error: "tool_failed", type: "tool_failed", message: "boom" });
    // A second worker sweeping the same run adds nothing: `end` is there.
    const other = worker(bridge, store, clock, logs);
    expect((await other.manager.recoverOnce()).ends).toBe(0);
    expect((await bridge.read(runId)).length).toBe(4);
  });
});
