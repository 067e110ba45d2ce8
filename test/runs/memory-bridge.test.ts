import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isKeelError } from "../../kernel/errors.js";
import { compareEventIds, isEventId, MemoryStreamBridge, type RetentionTimers } from "../../kernel/runs/memory-bridge.js";
import { EventIdSequence } from "../../kernel/runs/stream-event-id.js";
import { collect, describeStreamBridgeConformance, expectStreamEvents, newRunId } from "./bridge-conformance.js";

describeStreamBridgeConformance("memory", () => new MemoryStreamBridge({ retention: 8 }), { retention: 8 });

/** Timers the test fires by hand: the 24 h drop without waiting a day. */
function manualTimers() {
  const scheduled: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const timers: RetentionTimers = {
    schedule(fn, ms) {
      const entry = { fn, ms, cancelled: false };
      scheduled.push(entry);
      return () => void (entry.cancelled = true);
    },
  };
  return { timers, scheduled };
}

describe("compareEventIds", () => {
  it("orders numerically, part by part, not as strings", () => {
    expect(["10-0", "9-1", "9-10", "9-2", "100-0", "9-0"].sort(compareEventIds)).toEqual(["9-0", "9-1", "9-2", "9-10", "10-0", "100-0"]);
    expect(compareEventIds("007-1", "7-1")).toBe(0);
    expect(compareEventIds("18446744073709551615-0", "18446744073709551616-0")).toBeLessThan(0);
  });

  it("agrees with BigInt comparison of (ms, seq)", () => {
    const id = fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 64n }));
    fc.assert(
      fc.property(id, id, ([ms1, seq1], [ms2, seq2]) => {
        const expected = ms1 !== ms2 ? (ms1 < ms2 ? -1 : 1) : seq1 === seq2 ? 0 : seq1 < seq2 ? -1 : 1;
        expect(Math.sign(compareEventIds(`${ms1}-${seq1}`, `${ms2}-${seq2}`))).toBe(expected);
      }),
    );
  });

  it("refuses malformed ids with KEEL_ERR_STREAM_EVENT_ID_INVALID", () => {
    for (const bad of ["1", "a-1", "1-", "1-1-1", ""]) {
      let code: string | undefined;
      try {
        compareEventIds(bad, "1-0");
      } catch (error) {
        code = isKeelError(error) ? error.code : "other";
      }
      expect([bad, code]).toEqual([bad, "KEEL_ERR_STREAM_EVENT_ID_INVALID"]);
      expect(isEventId(bad)).toBe(false);
    }
  });
});

describe("EventIdSequence", () => {
  it("restarts the sequence each new millisecond and never goes back with the clock", () => {
    const ids = new EventIdSequence();
    expect([5, 5, 5, 6, 4, 4, 9].map((ms) => ids.next(ms))).toEqual(["5-0", "5-1", "5-2", "6-0", "6-1", "6-2", "9-0"]);
  });

  it("never assigns 0-0, the `prev` of a run's first event", () => {
    expect(new EventIdSequence().next(0)).toBe("0-1");
  });
});

describe("MemoryStreamBridge", () => {
  it("takes the `<ms>` part from the injected clock", async () => {
    let now = 1_700_000_000_000;
    const bridge = new MemoryStreamBridge({ clock: { now: () => now } });
    const runId = newRunId();
    const a = await bridge.publish(runId, "values", {});
    const b = await bridge.publish(runId, "values", {});
    now += 3;
    const c = await bridge.publish(runId, "values", {});
    expect([a.id, b.id, c.id]).toEqual(["1700000000000-0", "1700000000000-1", "1700000000003-0"]);
    await bridge.close();
  });

  it("keeps 1,024 events per run by default", async () => {
    const bridge = new MemoryStreamBridge();
    const runId = newRunId();
    for (let i = 0; i < 1030; i++) await bridge.publish(runId, "values", { i });
    const kept = await bridge.read(runId);
    expect(kept.length).toBe(1024);
    expect(kept[0]!.data).toEqual({ i: 6 });
    await bridge.close();
  });

  it("drops an ended run's log after the retention period (24 h by default)", async () => {
    const { timers, scheduled } = manualTimers();
    const bridge = new MemoryStreamBridge({ timers });
    const runId = newRunId();
    const e0 = await bridge.publish(runId, "values", { step: 0 });
    const end = await bridge.end(runId);
    expect(scheduled.map((s) => s.ms)).toEqual([24 * 60 * 60 * 1000]);
    expect(await bridge.read(runId)).toEqual([e0, end]);

    scheduled[0]!.fn();
    expect(await bridge.read(runId)).toEqual([]);
    // The client still holds a cursor: it learns that the log is gone.
    const events = await collect(bridge.subscribe(runId, { lastEventId: e0.id }));
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ["gap", { code: "stream_replay_gap", requested: e0.id, earliest: null, latest: null, recovery: "reload_durable_state" }],
    ]);
    expectStreamEvents(events);
    await bridge.close();
  });

  it("close() cancels the pending drops and refuses further use", async () => {
    const { timers, scheduled } = manualTimers();
    const bridge = new MemoryStreamBridge({ timers });
    await bridge.end(newRunId());
    await bridge.close();
    expect(scheduled.map((s) => s.cancelled)).toEqual([true]);
    await expect(bridge.publish(newRunId(), "values", {})).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_CLOSED" });
  });

  it("a throwing control handler is reported and the others still run", async () => {
    const errors: string[] = [];
    const bridge = new MemoryStreamBridge({ onControlError: (error, runId) => errors.push(`${runId}: ${(error as Error).message}`) });
    const runId = newRunId();
    const received: string[] = [];
    await bridge.onControl(runId, () => {
      throw new Error("broken listener");
    });
    await bridge.onControl(runId, (m) => received.push(m.action));
    await bridge.publishControl(runId, { type: "cancel", action: "rollback" });
    expect(received).toEqual(["rollback"]);
    expect(errors).toEqual([`${runId}: broken listener`]);
    await bridge.close();
  });

  it("refuses a retention that is not a positive integer", () => {
    for (const retention of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryStreamBridge({ retention })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    }
  });
});

describe("MemoryStreamBridge byte budget", () => {
  /** Data whose JSON is about `bytes` long. */
  const blob = (bytes: number, tag = "x") => ({ tag, text: "a".repeat(bytes) });
  const KIB = 1024;

  it("defaults to 64 MiB over all runs and 1 MiB per event", async () => {
    const bridge = new MemoryStreamBridge();
    const runId = newRunId();
    const small = await bridge.publish(runId, "values", blob(1000 * KIB));
    expect(small.data).toEqual(blob(1000 * KIB));
    const big = await bridge.publish(runId, "values", blob(1025 * KIB));
    expect(big.data).toMatchObject({ code: "stream_event_truncated", limit: 1024 * KIB });
    // 70 runs of one ~1000 KiB event each: 64 MiB holds about 65 of them.
    const runs: string[] = [];
    for (let i = 0; i < 70; i++) {
      const id = newRunId();
      runs.push(id);
      await bridge.publish(id, "values", blob(1000 * KIB));
    }
    const stats = bridge.stats();
    expect(stats.bytes).toBeLessThanOrEqual(64 * 1024 * KIB);
    expect(stats.bytes).toBeGreaterThan(60 * 1024 * KIB);
    expect(await bridge.read(runs.at(-1)!)).toHaveLength(1);
    await bridge.close();
  });

  it("gives a deleted run's bytes back to the budget (a thread purge)", async () => {
    const bridge = new MemoryStreamBridge({ maxBytes: 40 * KIB, maxEventBytes: 16 * KIB });
    const [deleted, kept] = [newRunId(), newRunId()];
    await bridge.publish(deleted, "values", blob(10 * KIB, "deleted"));
    await bridge.end(deleted);
    const keptEvent = await bridge.publish(kept, "values", blob(10 * KIB, "kept"));
    const before = bridge.stats().bytes;
    await bridge.deleteRuns([deleted]);
    const after = bridge.stats();
    expect(after.runs).toBe(1);
    expect(before - after.bytes).toBeGreaterThan(10 * KIB);
    // Two more live events fit now without evicting the kept one.
    for (let i = 0; i < 2; i++) await bridge.publish(kept, "values", blob(10 * KIB, `more${i}`));
    expect((await bridge.read(kept))[0]!.id).toBe(keptEvent.id);
    await bridge.close();
  });

  it("evicts ended runs' logs first, the oldest ended first, before any live event", async () => {
    const bridge = new MemoryStreamBridge({ maxBytes: 40 * KIB, maxEventBytes: 16 * KIB });
    const [live, endedFirst, endedSecond] = [newRunId(), newRunId(), newRunId()];
    const liveEvent = await bridge.publish(live, "values", blob(10 * KIB, "live"));
    await bridge.publish(endedSecond, "values", blob(10 * KIB, "second"));
    await bridge.publish(endedFirst, "values", blob(10 * KIB, "first"));
    // Ended in this order: `endedFirst`, then `endedSecond` (publish order does not matter).
    await bridge.end(endedFirst);
    await bridge.end(endedSecond);
    expect(bridge.stats().runs).toBe(3);

    // ~10 KiB more goes over 40 KiB: the log that ended first goes, whole.
    await bridge.publish(live, "values", blob(10 * KIB, "live2"));
    expect(await bridge.read(endedFirst)).toEqual([]);
    expect((await bridge.read(endedSecond)).map((e) => e.event)).toEqual(["values", "end"]);
    expect((await bridge.read(live))[0]).toEqual(liveEvent);

    await bridge.publish(live, "values", blob(10 * KIB, "live3"));
    expect(await bridge.read(endedSecond)).toEqual([]);
    expect((await bridge.read(live)).map((e) => (e.data as { tag: string }).tag)).toEqual(["live", "live2", "live3"]);
    expect(bridge.stats().bytes).toBeLessThanOrEqual(40 * KIB);
    await bridge.close();
  });

  it("then evicts the oldest events of live runs, across runs, never the one just published", async () => {
    let now = 1_000;
    const bridge = new MemoryStreamBridge({ maxBytes: 40 * KIB, maxEventBytes: 16 * KIB, clock: { now: () => now } });
    const [a, b] = [newRunId(), newRunId()];
    const a1 = await bridge.publish(a, "values", blob(10 * KIB, "a1"));
    now++;
    const b1 = await bridge.publish(b, "values", blob(10 * KIB, "b1"));
    now++;
    const a2 = await bridge.publish(a, "values", blob(10 * KIB, "a2"));
    now++;
    const b2 = await bridge.publish(b, "values", blob(10 * KIB, "b2")); // over 40 KiB: a1 (the oldest) goes
    expect(await bridge.read(a)).toEqual([a2]);
    expect(await bridge.read(b)).toEqual([b1, b2]);
    now++;
    const b3 = await bridge.publish(b, "values", blob(10 * KIB, "b3")); // b1 is the oldest now
    expect(await bridge.read(a)).toEqual([a2]);
    expect(await bridge.read(b)).toEqual([b2, b3]);
    expect(a1.id < b1.id).toBe(true);

    // A single event near the budget pushes every other event out, and itself stays.
    const huge = await bridge.publish(a, "values", blob(15 * KIB, "huge"));
    expect(bridge.stats().bytes).toBeLessThanOrEqual(40 * KIB);
    expect((await bridge.read(a)).at(-1)).toEqual(huge);
    await bridge.close();
  });

  it("a replay that reaches evicted events gets `gap`; one after them resumes", async () => {
    let now = 5_000;
    const bridge = new MemoryStreamBridge({ maxBytes: 40 * KIB, maxEventBytes: 16 * KIB, clock: { now: () => now++ } });
    const runId = newRunId();
    const first = await bridge.publish(runId, "metadata", { run_id: runId });
    const events = [first];
    for (let i = 0; i < 6; i++) events.push(await bridge.publish(runId, "values", blob(10 * KIB, `v${i}`)));
    const kept = await bridge.read(runId);
    expect(kept).toEqual(events.slice(-3)); // three 10 KiB events fit in 40 KiB
    const lostThrough = events[events.length - 4]!;

    const fromStart = await collect(bridge.subscribe(runId, { lastEventId: first.id }));
    expect(fromStart).toEqual([
      {
        id: lostThrough.id,
        runId,
        event: "gap",
        data: { code: "stream_replay_gap", requested: first.id, earliest: kept[0]!.id, latest: kept.at(-1)!.id, recovery: "reload_durable_state" },
      },
    ]);
    expectStreamEvents(fromStart);
    const end = await bridge.end(runId);
    expect(await collect(bridge.subscribe(runId, { lastEventId: lostThrough.id }))).toEqual([...kept, end]);

    // An ended log evicted whole: a cursor into it learns that it is gone.
    const other = newRunId();
    await bridge.publish(other, "values", blob(15 * KIB));
    await bridge.publish(other, "values", blob(15 * KIB));
    expect(await bridge.read(runId)).toEqual([]);
    const [gap] = await collect(bridge.subscribe(runId, { lastEventId: kept[0]!.id }));
    expect(gap).toMatchObject({ event: "gap", data: { requested: kept[0]!.id, earliest: null, latest: null } });
    await bridge.close();
  });

  it("stores an event over maxEventBytes truncated, with a marker, and counts the marker", async () => {
    const bridge = new MemoryStreamBridge({ maxEventBytes: 2 * KIB });
    const runId = newRunId();
    const data = { messages: [{ type: "human", content: "é".repeat(3000) }] };
    const json = JSON.stringify(data);
    const stored = await bridge.publish(runId, "values", data, { epoch: 3 });
    expect(stored).toEqual({
      id: stored.id,
      runId,
      event: "values",
      epoch: 3,
      data: { code: "stream_event_truncated", bytes: Buffer.byteLength(json), limit: 2 * KIB, preview: json.slice(0, 256), recovery: "reload_durable_state" },
    });
    expect(await bridge.read(runId)).toEqual([stored]);
    expect(await collect(bridge.subscribe(runId), 1)).toEqual([stored]);
    expect(bridge.stats().bytes).toBeLessThan(1 * KIB);
    // At the cap exactly: stored as is.
    const exact = { t: "a".repeat(2 * KIB - 8) };
    expect(JSON.stringify(exact).length).toBe(2 * KIB);
    expect((await bridge.publish(runId, "values", exact)).data).toBe(exact);
    expectStreamEvents([stored]);
    await bridge.close();
  });

  it("counts bytes at publish and frees them on retention, the after-end drop and close", async () => {
    const { timers, scheduled } = manualTimers();
    const bridge = new MemoryStreamBridge({ retention: 2, timers });
    const runId = newRunId();
    await bridge.publish(runId, "values", blob(1000));
    const one = bridge.stats().bytes;
    expect(one).toBeGreaterThan(1000);
    await bridge.publish(runId, "values", blob(1000));
    await bridge.publish(runId, "values", blob(1000)); // retention 2: the first is dropped
    expect(bridge.stats()).toEqual({ runs: 1, events: 2, bytes: 2 * one });
    await bridge.end(runId);
    scheduled[0]!.fn();
    expect(bridge.stats()).toEqual({ runs: 0, events: 0, bytes: 0 });
    await bridge.publish(newRunId(), "values", blob(1000));
    await bridge.close();
    expect(bridge.stats()).toEqual({ runs: 0, events: 0, bytes: 0 });
  });

  it("refuses a budget below the per-event cap and a per-event cap below 1 KiB", () => {
    for (const options of [{ maxBytes: 1023 }, { maxEventBytes: 1023 }, { maxBytes: 4 * KIB, maxEventBytes: 8 * KIB }, { maxBytes: 4096.5, maxEventBytes: 2048 }]) {
      expect(() => new MemoryStreamBridge(options)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    }
    expect(() => new MemoryStreamBridge({ maxBytes: 8 * KIB, maxEventBytes: 8 * KIB })).not.toThrow();
  });
});
