import { describe, expect, it } from "vitest";
import { KeelError } from "../../kernel/errors.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import type { StreamEvent, SubscribeOptions } from "../../kernel/runs/types.js";
import { managedSetups, request, until } from "./run-manager-harness.js";

const { started, managers } = managedSetups();

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** A bridge whose subscriptions fail once the test says so (Redis down), as KEEL_ERR_STREAM_UNAVAILABLE. */
class FailingBridge extends MemoryStreamBridge {
  down = false;
  subscriptions = 0;
  override async *subscribe(runId: string, options: SubscribeOptions = {}): AsyncGenerator<StreamEvent> {
    this.subscriptions++;
    for await (const event of super.subscribe(runId, options)) {
      if (this.down) throw new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", "reading the stream failed: the bridge is down");
      yield event;
    }
    if (this.down) throw new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", "reading the stream failed: the bridge is down");
  }
}

/**
 * `RunManager.follow` (follow-run.ts): a reader's stream always ends with `end`. Before it,
 * the SSE routes closed a stream whose bridge subscription failed (a Redis restart), and
 * one that got `gap`, without `end` (the nemesis scenario redis-restart).
 */
describe("RunManager.follow", () => {
  it("a subscription that fails mid-run is opened again after the last event delivered: no event twice, `end` last", async () => {
    const bridge = new FailingBridge();
    const s = await started({ bridge, joinRecheckMs: 5 });
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    const call = s.executor.calls[0]!;
    call.io.emit("custom", { step: 1 });
    const reading = collect(s.manager.follow(run.runId));
    await until(() => bridge.subscriptions === 1, "the reader to subscribe");
    bridge.down = true;
    call.io.emit("custom", { step: 2 });
    await until(() => bridge.subscriptions > 1, "the reader to try again");
    bridge.down = false;
    call.io.emit("custom", { step: 3 });
    call.finish();
    const events = await reading;
    expect(events.at(-1)!.event).toBe("end");
    const published = await bridge.read(run.runId);
    // Everything published, once each, in order (the reader resumed after its last event).
    expect(events.map((e) => e.id)).toEqual(published.map((e) => e.id));
  });

  it("after a `gap` with nothing retained (a bridge restarted empty), a finished run's stream closes with the record's final events and `end`", async () => {
    const s = await started({ joinRecheckMs: 5 });
    const thread = await s.thread();
    const run = await s.manager.createOrReject(thread, request(), { user: "alice" });
    await until(() => s.executor.calls.length === 1, "the run to start");
    // A reader on a worker whose bridge lost everything (an empty restart), resuming after an event it had.
    const reader = s.worker({ bridge: new MemoryStreamBridge(), joinRecheckMs: 5 });
    managers.push(reader);
    const seen = (await s.bridge.read(run.runId)).at(-1)!.id;
    const reading = collect(reader.follow(run.runId, { lastEventId: seen }));
    s.executor.threadState = { messages: ["final"] };
    s.executor.calls[0]!.finish();
    const events = await reading;
    expect(events[0]).toMatchObject({ event: "gap", data: { code: "stream_replay_gap", requested: seen } });
    expect(events.filter((e) => e.event === "gap")).toHaveLength(1);
    expect(events.at(-1)!.event).toBe("end");
    expect(events.find((e) => e.event === "values")?.data).toEqual({ messages: ["final"] });
  });
});
