/**
 * The StreamBridge conformance suite: every implementation (memory, Redis) runs it.
 * Every event a test receives, `gap` included, is checked against stream-event@1.
 * No assertion depends on timing: "live" tests park a `next()` before publishing and
 * only await what must arrive.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { isKeelError } from "../../kernel/errors.js";
import { compareEventIds, isEventId } from "../../kernel/runs/stream-event-id.js";
import type { ControlMessage, StreamBridge, StreamEvent } from "../../kernel/runs/types.js";

export interface ConformanceOptions {
  /** Events the bridge under test retains per run; configure it small (the gap tests publish retention + 10). */
  retention: number;
  /** Two bridges from `makeBridge` share one backend (two workers on one Redis): cross-instance tests run. */
  sharedBackend?: boolean;
}

/** Run ids of these tests share a prefix, so a shared Redis can be cleaned of them (RUN_ID_PREFIX*). */
export const RUN_ID_PREFIX = "conformance-";

export function newRunId(): string {
  return `${RUN_ID_PREFIX}${randomUUID()}`;
}

/** Collect an iteration to its end; a bounded count guards against a subscription that never ends. */
export async function collect(iterable: AsyncIterable<StreamEvent>, atMost = 100_000): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of iterable) {
    events.push(event);
    if (events.length >= atMost) break;
  }
  return events;
}

export function expectStreamEvents(events: readonly StreamEvent[]): void {
  for (const event of events) expect([event.event, validate("stream-event@1", event).errors]).toEqual([event.event, []]);
}

function expectIncreasing(ids: readonly string[]): void {
  for (const id of ids) expect(isEventId(id)).toBe(true);
  for (let i = 1; i < ids.length; i++) expect([ids[i - 1], ids[i], compareEventIds(ids[i - 1]!, ids[i]!) < 0]).toEqual([ids[i - 1], ids[i], true]);
}

async function publishValues(bridge: StreamBridge, runId: string, count: number, from = 0): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for (let i = from; i < from + count; i++) events.push(await bridge.publish(runId, "values", { step: i }));
  return events;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isKeelError(error) ? error.code : `not a KeelError: ${String(error)}`;
  }
  return undefined;
}

async function codeOfAsync(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return isKeelError(error) ? error.code : `not a KeelError: ${String(error)}`;
  }
  return undefined;
}

export function describeStreamBridgeConformance(name: string, makeBridge: () => StreamBridge | Promise<StreamBridge>, options: ConformanceOptions): void {
  const { retention } = options;

  describe(`StreamBridge conformance: ${name}`, () => {
    const opened: StreamBridge[] = [];
    async function bridge(): Promise<StreamBridge> {
      const made = await makeBridge();
      opened.push(made);
      return made;
    }
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });

    it("assigns `<ms>-<seq>` ids, strictly increasing per run, and returns what it stored", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = await publishValues(b, runId, 40);
      published.push(await b.publish(runId, "custom", ["tuple", 1]));
      published.push(await b.end(runId));
      expectIncreasing(published.map((e) => e.id));
      expect(published.at(-1)).toEqual({ id: published.at(-1)!.id, runId, event: "end", data: null });
      expect(await b.read(runId)).toEqual(published.slice(-Math.min(retention, published.length)));
    });

    it("reads a log's newest events (readLatest, when the bridge has it), oldest first", async () => {
      const b = await bridge();
      if (!b.readLatest) return;
      const runId = newRunId();
      const published = await publishValues(b, runId, 5);
      expect(await b.readLatest(runId, 2)).toEqual(published.slice(-2));
      expect(await b.readLatest(runId, 50)).toEqual(published.slice(-Math.min(retention, published.length)));
      expect(await b.readLatest(runId, 0)).toEqual([]);
      expect(await b.readLatest(newRunId(), 3)).toEqual([]);
    });

    it("replays from the start (no lastEventId) through `end`, in order", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = [...(await publishValues(b, runId, 5)), await b.end(runId)];
      const replayed = await collect(b.subscribe(runId));
      expect(replayed).toEqual(published);
      expectStreamEvents(replayed);
    });

    it("replays only the events after a mid-stream lastEventId (exclusive)", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = [...(await publishValues(b, runId, 6)), await b.end(runId)];
      expect(await collect(b.subscribe(runId, { lastEventId: published[2]!.id }))).toEqual(published.slice(3));
      expect(await collect(b.subscribe(runId, { lastEventId: published[5]!.id }))).toEqual(published.slice(6));
    });

    it("follows live: a subscriber waiting before the run published receives every event in order", async () => {
      const b = await bridge();
      const runId = newRunId();
      const iterator = b.subscribe(runId)[Symbol.asyncIterator]();
      const first = iterator.next(); // parked on a run that has published nothing yet
      const e0 = await b.publish(runId, "metadata", { run_id: runId });
      expect(await first).toEqual({ done: false, value: e0 });
      const second = iterator.next();
      const e1 = await b.publish(runId, "values", { step: 1 });
      expect(await second).toEqual({ done: false, value: e1 });
      const e2 = await b.publish(runId, "values", { step: 2 });
      const end = await b.end(runId);
      const rest: StreamEvent[] = [];
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
      expect(rest).toEqual([e2, end]);
      expectStreamEvents([e0, e1, ...rest]);
    });

    it("`end` finishes every subscriber; a late subscriber gets the whole log including `end`", async () => {
      const b = await bridge();
      const runId = newRunId();
      const e0 = await b.publish(runId, "values", { step: 0 });
      const early = [collect(b.subscribe(runId)), collect(b.subscribe(runId, { lastEventId: e0.id }))];
      const rest = [...(await publishValues(b, runId, 3, 1)), await b.end(runId)];
      expect(await Promise.all(early)).toEqual([[e0, ...rest], rest]);
      expect(await collect(b.subscribe(runId))).toEqual([e0, ...rest]);
    });

    it("a cursor at (or past) `end` finishes at once with nothing", async () => {
      const b = await bridge();
      const runId = newRunId();
      await publishValues(b, runId, 2);
      const end = await b.end(runId);
      expect(await collect(b.subscribe(runId, { lastEventId: end.id }))).toEqual([]);
    });

    it("`end` is written once: a second `end` returns the first, `publish` after it is refused", async () => {
      const b = await bridge();
      const runId = newRunId();
      await b.publish(runId, "values", { step: 0 });
      const end = await b.end(runId);
      expect(await b.end(runId)).toEqual(end);
      expect(await codeOfAsync(() => b.publish(runId, "values", { late: true }))).toBe("KEEL_ERR_STREAM_ENDED");
      expect((await b.read(runId)).at(-1)).toEqual(end);
    });

    it("refuses to publish the reserved names `end` and `gap`", async () => {
      const b = await bridge();
      const runId = newRunId();
      expect(await codeOfAsync(() => b.publish(runId, "end", null))).toBe("KEEL_ERR_STREAM_RESERVED_EVENT");
      expect(await codeOfAsync(() => b.publish(runId, "gap", {}))).toBe("KEEL_ERR_STREAM_RESERVED_EVENT");
      expect(await b.read(runId)).toEqual([]);
    });

    it("`-1` as lastEventId (the SDK's useStream) replays from the start, like no lastEventId", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = [...(await publishValues(b, runId, 3)), await b.end(runId)];
      expect(await collect(b.subscribe(runId, { lastEventId: "-1" }))).toEqual(published);
    });

    it("rejects a malformed lastEventId when subscribing, before any iteration", async () => {
      const b = await bridge();
      for (const bad of ["", "abc", "12", "1-2-3", "-1-0", "1.5-0", " 1-0", "-2", "-1 ", "0x1-0", "1-0\n"]) {
        expect([bad, codeOf(() => b.subscribe(newRunId(), { lastEventId: bad }))]).toEqual([bad, "KEEL_ERR_STREAM_EVENT_ID_INVALID"]);
      }
    });

    it(`keeps the newest ${retention} events of a run`, async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = await publishValues(b, runId, retention + 10);
      expect(await b.read(runId)).toEqual(published.slice(10));
    });

    it("a cursor that fell out of retention gets exactly one `gap` event, then the iteration ends", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = await publishValues(b, runId, retention + 10);
      const events = await collect(b.subscribe(runId, { lastEventId: published[0]!.id }));
      expect(events).toEqual([
        {
          id: published[9]!.id, // the newest event the subscriber missed
          runId,
          event: "gap",
          data: {
            code: "stream_replay_gap",
            requested: published[0]!.id,
            earliest: published[10]!.id,
            latest: published.at(-1)!.id,
            recovery: "reload_durable_state",
          },
        },
      ]);
      expectStreamEvents(events);
    });

    it("a cursor at the newest dropped event is not a gap: replay resumes at the earliest retained one", async () => {
      const b = await bridge();
      const runId = newRunId();
      const published = await publishValues(b, runId, retention + 10);
      const end = await b.end(runId);
      // `end` pushed one more event out: published[10] is now the newest dropped one.
      const replayed = await collect(b.subscribe(runId, { lastEventId: published[10]!.id }));
      expect(replayed).toEqual([...published.slice(11), end]);
      // …and the gap's own id works as a cursor the same way.
      const [gap] = await collect(b.subscribe(runId, { lastEventId: published[3]!.id }));
      expect(gap?.event).toBe("gap");
      expect(await collect(b.subscribe(runId, { lastEventId: gap!.id }))).toEqual(replayed);
    });

    it("a subscriber that falls behind retention while following gets `gap`, not a silent hole", async () => {
      const b = await bridge();
      const runId = newRunId();
      const e0 = await b.publish(runId, "values", { step: 0 });
      const iterator = b.subscribe(runId)[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: e0 });
      const later = await publishValues(b, runId, retention + 5, 1);
      const next = await iterator.next();
      expect(next.value?.event).toBe("gap");
      expect(next.value?.data).toMatchObject({ requested: e0.id, earliest: later[5]!.id, latest: later.at(-1)!.id });
      expect(next.value?.id).toBe(later[4]!.id);
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
    });

    it("a cursor for a run with nothing retained gets a `gap` with null bounds", async () => {
      const b = await bridge();
      const runId = newRunId();
      const events = await collect(b.subscribe(runId, { lastEventId: "1700000000000-3" }));
      expect(events).toEqual([
        {
          id: "1700000000000-3",
          runId,
          event: "gap",
          data: { code: "stream_replay_gap", requested: "1700000000000-3", earliest: null, latest: null, recovery: "reload_durable_state" },
        },
      ]);
      expectStreamEvents(events);
    });

    it("aborting the signal ends a waiting iteration, and an aborted signal yields nothing", async () => {
      const b = await bridge();
      const runId = newRunId();
      const e0 = await b.publish(runId, "values", { step: 0 });
      const controller = new AbortController();
      const iterator = b.subscribe(runId, { signal: controller.signal })[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: e0 });
      const waiting = iterator.next();
      controller.abort();
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(await collect(b.subscribe(runId, { signal: AbortSignal.abort() }))).toEqual([]);
      // Also for a run that has not published at all.
      const idle = new AbortController();
      const pending = collect(b.subscribe(newRunId(), { signal: idle.signal }));
      idle.abort();
      expect(await pending).toEqual([]);
    });

    it("close() ends the subscriptions that are still waiting and refuses further use", async () => {
      const b = await makeBridge();
      const pending = collect(b.subscribe(newRunId()));
      await b.close();
      expect(await pending).toEqual([]);
      expect(codeOf(() => b.subscribe(newRunId()))).toBe("KEEL_ERR_STREAM_CLOSED");
      expect(await codeOfAsync(() => b.publish(newRunId(), "values", {}))).toBe("KEEL_ERR_STREAM_CLOSED");
      expect(await codeOfAsync(() => b.read(newRunId()))).toBe("KEEL_ERR_STREAM_CLOSED");
      expect(await codeOfAsync(() => b.publishControl(newRunId(), { type: "cancel", action: "interrupt" }))).toBe("KEEL_ERR_STREAM_CLOSED");
    });

    it("deleteRuns forgets those runs' logs, and only theirs", async () => {
      const b = await bridge();
      const [gone, alsoGone, kept] = [newRunId(), newRunId(), newRunId()];
      for (const runId of [gone, alsoGone, kept]) {
        await publishValues(b, runId, 3);
        await b.end(runId);
      }
      const keptEvents = await b.read(kept);
      expect(b.deleteRuns, "the bridge deletes runs").toBeTypeOf("function");
      await b.deleteRuns!([gone, alsoGone]);
      expect(await b.read(gone)).toEqual([]);
      expect(await b.read(alsoGone)).toEqual([]);
      expect(await b.read(kept)).toEqual(keptEvents);
      // Nothing to replay: a subscription from the start waits as for a run that never published.
      const idle = new AbortController();
      const replay = collect(b.subscribe(gone, { signal: idle.signal }));
      await new Promise((resolve) => setImmediate(resolve));
      idle.abort();
      expect(await replay).toEqual([]);
      await b.deleteRuns!([newRunId()]); // unknown runs are fine
    });

    it("keeps concurrent runs apart", async () => {
      const b = await bridge();
      const runs = [newRunId(), newRunId(), newRunId()];
      const expected = new Map<string, StreamEvent[]>(runs.map((r) => [r, []]));
      const followers = runs.map((r) => collect(b.subscribe(r)));
      await Promise.all(
        runs.map(async (runId, n) => {
          for (let i = 0; i < 5; i++) expected.get(runId)!.push(await b.publish(runId, "values", { run: n, step: i }));
          expected.get(runId)!.push(await b.end(runId));
        }),
      );
      const received = await Promise.all(followers);
      runs.forEach((runId, n) => {
        expect(received[n]).toEqual(expected.get(runId));
        expect(received[n]!.every((e) => e.runId === runId)).toBe(true);
        expectIncreasing(received[n]!.map((e) => e.id));
      });
    });

    it("delivers control messages to every handler of the run, and only of that run", async () => {
      const b = await bridge();
      const runId = newRunId();
      const other = newRunId();
      const received: ControlMessage[] = [];
      const removed: ControlMessage[] = [];
      const otherReceived: ControlMessage[] = [];
      let arrived: () => void = () => {};
      const twoArrived = new Promise<void>((resolve) => (arrived = resolve));
      await b.onControl(runId, (m) => {
        received.push(m);
        if (received.length === 2) arrived();
      });
      const unsubscribe = await b.onControl(runId, (m) => removed.push(m));
      await b.onControl(other, (m) => otherReceived.push(m));
      await unsubscribe();
      await b.publishControl(runId, { type: "cancel", action: "interrupt" });
      await b.publishControl(runId, { type: "cancel", action: "rollback" });
      await twoArrived;
      expect(received).toEqual([
        { type: "cancel", action: "interrupt" },
        { type: "cancel", action: "rollback" },
      ]);
      // Handlers of one bridge see messages in the same order: the removed one would have had them by now.
      expect(removed).toEqual([]);
      expect(otherReceived).toEqual([]);
    });

    if (options.sharedBackend) {
      it("two bridge instances on one backend (two workers) share streams and control messages", async () => {
        const workerA = await bridge();
        const workerB = await bridge();
        const runId = newRunId();
        let delivered: (m: ControlMessage) => void = () => {};
        const onB = new Promise<ControlMessage>((resolve) => (delivered = resolve));
        await workerB.onControl(runId, (m) => delivered(m));
        const follower = collect(workerB.subscribe(runId));
        const published = [...(await publishValues(workerA, runId, 3)), await workerA.end(runId)];
        expect(await follower).toEqual(published);
        expect(await workerB.read(runId)).toEqual(published);
        await workerA.publishControl(runId, { type: "cancel", action: "interrupt" });
        expect(await onB).toEqual({ type: "cancel", action: "interrupt" });
      });
    }
  });
}
