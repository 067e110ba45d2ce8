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
