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
