import { describe, expect, it } from "vitest";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunOutput } from "../../kernel/runs/run-output.js";
import type { JournalEntry } from "../../kernel/runs/types.js";
import { storeWith } from "./run-manager-harness.js";

const entry = (name: string): JournalEntry => ({ seq: 0, at: "2026-01-01T00:00:00.000Z", runId: "r1", agent: "lead", turn: 0, kind: "lifecycle", name, status: "ok", durationMs: 0 });

/** A RunOutput over a memory store whose journal writes fail while `failing` is set. */
function output() {
  const inner = new MemoryRunStore();
  const state = { failing: true, attempts: 0 };
  const store = storeWith(inner, {
    appendJournal: async (runId: string, batch: readonly JournalEntry[]) => {
      state.attempts += 1;
      if (state.failing) throw new Error("database is locked");
      await inner.appendJournal(runId, batch);
    },
  });
  const logs: string[] = [];
  return { out: new RunOutput("r1", new MemoryStreamBridge(), store, 2, (m) => logs.push(m)), inner, state, logs };
}

describe("RunOutput: journal writes that fail", () => {
  it("never reject; keep the entries in order; wait one more batch before the next size-triggered write; report the gap", async () => {
    const { out, inner, state, logs } = output();
    out.journal(entry("a"));
    out.journal(entry("b")); // batch full: a write, which fails
    expect(await out.flushJournal()).toBe(false); // an explicit flush retries it, and fails again
    expect(state.attempts).toBe(2);
    out.journal(entry("c")); // 3 buffered: below 2 + batch, no write
    await out.flushJournal().then(() => undefined); // (explicit flush: attempt 3)
    expect(state.attempts).toBe(3);
    out.journal(entry("d"));
    expect(state.attempts).toBe(3); // 4 buffered < 3 + 2: still waiting
    expect(out.journalGap()).toEqual({ failedWrites: 3, unwrittenEntries: 4, firstError: "database is locked" });
    expect(logs.every((l) => l.includes("the run goes on"))).toBe(true);

    state.failing = false;
    expect(await out.flushJournal()).toBe(true);
    expect((await inner.readJournal("r1")).map((e) => [e.seq, e.name])).toEqual([[1, "a"], [2, "b"], [3, "c"], [4, "d"]]);
    expect(out.journalGap()).toBeNull();
    // Healthy again: the batch size triggers writes as usual.
    out.journal(entry("e"));
    out.journal(entry("f"));
    await out.flushJournal();
    expect(state.attempts).toBe(5); // one write for the full batch; the explicit flush finds nothing left
    expect((await inner.readJournal("r1")).map((e) => e.name)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });
});

describe("RunOutput: publishing", () => {
  /** A memory bridge whose publishes settle only when the test says so, counting calls. */
  function gatedBridge(orderedPublish: boolean) {
    const inner = new MemoryStreamBridge();
    const gates: Array<() => void> = [];
    const calls: string[] = [];
    const bridge = Object.assign(Object.create(inner) as MemoryStreamBridge, {
      orderedPublish,
      publish: (runId: string, event: string, data: unknown, options?: { epoch?: number }) => {
        calls.push(event);
        const published = inner.publish(runId, event, data, options);
        return new Promise((resolve) => gates.push(() => resolve(published)));
      },
    });
    return { bridge, gates, calls, inner };
  }

  it("hands every event at once to a bridge that keeps call order, and records them in order under the run's epoch", async () => {
    const { bridge, gates, calls } = gatedBridge(true);
    const out = new RunOutput("r1", bridge, new MemoryRunStore(), 10, () => undefined, 3);
    out.emit("metadata", { run_id: "r1" });
    out.emit("values", { step: 1 });
    out.emit("custom", { step: 2 });
    expect(calls).toEqual(["metadata", "values", "custom"]); // none waited for the one before
    for (const open of [...gates].reverse()) open(); // answers in any order: still recorded in emission order
    await out.drainEvents();
    expect(out.published.map((e) => [e.event, e.epoch])).toEqual([["metadata", 3], ["values", 3], ["custom", 3]]);
  });

  it("publishes one at a time to a bridge that does not say so", async () => {
    const { bridge, gates, calls } = gatedBridge(false);
    const out = new RunOutput("r1", bridge, new MemoryRunStore(), 10, () => undefined, 1);
    out.emit("metadata", { run_id: "r1" });
    out.emit("values", { step: 1 });
    await Promise.resolve();
    await Promise.resolve();
    expect(calls).toEqual(["metadata"]);
    gates[0]!();
    for (let i = 0; i < 10 && gates.length < 2; i++) await Promise.resolve();
    expect(calls).toEqual(["metadata", "values"]);
    gates[1]!();
    await out.drainEvents();
    expect(out.published.map((e) => e.event)).toEqual(["metadata", "values"]);
  });

  it("a failed publish on an ordered bridge is logged, not thrown, and the events after it still go out", async () => {
    const inner = new MemoryStreamBridge();
    const logs: string[] = [];
    const bridge = Object.assign(Object.create(inner) as MemoryStreamBridge, {
      orderedPublish: true,
      publish: (runId: string, event: string, data: unknown) => (event === "values" ? Promise.reject(new Error("Redis is down")) : inner.publish(runId, event, data)),
    });
    const out = new RunOutput("r1", bridge, new MemoryRunStore(), 10, (m) => logs.push(m));
    out.emit("metadata", {});
    out.emit("values", {});
    out.emit("custom", {});
    await out.drainEvents();
    expect(out.published.map((e) => e.event)).toEqual(["metadata", "custom"]);
    expect(logs).toEqual(["run r1: publishing `values` failed"]);
  });
});
