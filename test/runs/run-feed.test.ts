/** What a run is doing now, from its events and journal (kernel/runs/run-feed.ts). */
import { describe, expect, it } from "vitest";
import { RunActivityTracker, summaryOfRecord } from "../../kernel/runs/run-feed.js";
import type { JournalEntry, RunRecord } from "../../kernel/runs/types.js";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const record: RunRecord = {
  runId: "r1",
  threadId: "t1",
  assistantId: "lead",
  status: "running",
  multitaskStrategy: "reject",
  epoch: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  user: "alice",
  request: { assistantId: "lead", input: "hi" },
};
const entry = (fields: Partial<JournalEntry>): JournalEntry => ({ seq: 0, at: "", runId: "r1", agent: "lead", turn: 1, kind: "model_call", status: "ok", durationMs: 1, ...fields });

describe("RunActivityTracker", () => {
  it("follows the lead: model call, tools (named when the update carries the tool calls), turns and tokens", () => {
    let now = T0;
    const tracker = new RunActivityTracker(record, { now: () => now });
    expect(tracker.summary()).toMatchObject({ status: "running", turns: 0, activity: { kind: "model" } });
    expect(tracker.journal(entry({ usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }))).toBe(true);
    // Keel's routing update: the agent node hands over to the tools.
    expect(tracker.event("updates", { agent: { agent: "lead", turn: 1, route: "tools" } })).toBe(true);
    expect(tracker.summary()).toMatchObject({ turns: 1, tokens: { input: 10, output: 5, total: 15 }, activity: { kind: "tool" } });
    expect(tracker.summary().activity.tool).toBeUndefined();
    expect(tracker.event("updates", { tools: { agent: "lead", turn: 1, route: "agent" } })).toBe(true);
    expect(tracker.summary().activity).toEqual({ kind: "model" });
    // LangGraph's update: the agent node's messages, the last one with its tool calls.
    tracker.journal(entry({ turn: 2, usage: { inputTokens: 20, outputTokens: 7, totalTokens: 27 } }));
    tracker.event("updates", { agent: { messages: [{ type: "ai", content: "", tool_calls: [{ name: "read_file", args: {}, id: "c1" }, { name: "bash", args: {}, id: "c2" }] }] } });
    expect(tracker.summary()).toMatchObject({ turns: 2, tokens: { input: 30, output: 12, total: 42 }, activity: { kind: "tool", tool: "read_file" } });
    tracker.journal(entry({ kind: "tool_call", name: "read_file", turn: 2 }));
    expect(tracker.summary().activity).toEqual({ kind: "tool", tool: "bash" });
    // A child's events and journal move neither the lead's turns nor its activity.
    expect(tracker.event("updates", { agent: { agent: "lead/c9", turn: 7, route: "tools" } })).toBe(false);
    expect(tracker.journal(entry({ agent: "lead/c9", turn: 7, usage: { inputTokens: 99, outputTokens: 9, totalTokens: 108 } }))).toBe(false);
    now += 5;
    expect(tracker.summary().updated_at).toBe(new Date(T0 + 5).toISOString());
  });

  it("shows subagents with their statuses while they run, and a retry with its countdown", () => {
    const now = T0 + 1_000;
    const tracker = new RunActivityTracker(record, { now: () => now });
    tracker.event("updates", { agent: { agent: "lead", turn: 1, route: "tools" } });
    tracker.event("task", { phase: "started", taskId: "c1", agent: "lead/c1", status: "in_progress" });
    tracker.event("task", { phase: "started", taskId: "c2", agent: "lead/c2", status: "in_progress" });
    expect(tracker.summary().activity).toEqual({ kind: "subagents", subagents: [{ agent_path: "lead/c1", status: "in_progress" }, { agent_path: "lead/c2", status: "in_progress" }] });
    tracker.event("task", { phase: "terminal", taskId: "c1", agent: "lead/c1", status: "succeeded" });
    expect(tracker.summary().activity.kind).toBe("subagents");
    tracker.event("task", { phase: "terminal", taskId: "c2", agent: "lead/c2", status: "partial" });
    expect(tracker.summary().activity).toEqual({ kind: "tool", subagents: [{ agent_path: "lead/c1", status: "succeeded" }, { agent_path: "lead/c2", status: "partial" }] });

    tracker.event("updates", { tools: { agent: "lead", turn: 1, route: "agent" } });
    expect(tracker.event("guard", { plugin: "error-fallback", agent: "lead", action: "retry", reason: "rate_limit", retryInMs: 2_500 })).toBe(true);
    expect(tracker.summary().activity).toMatchObject({ kind: "retry", retry_in_ms: 2_500, retry_at: new Date(T0 + 3_500).toISOString() });
    // The retried call answered: back to the model.
    tracker.journal(entry({ turn: 2 }));
    expect(tracker.summary().activity.kind).toBe("model");
    // Other guards are not activity.
    expect(tracker.event("guard", { plugin: "loop-detection", agent: "lead", action: "warn", reason: "loop" })).toBe(false);
  });
});

describe("summaryOfRecord", () => {
  it("is queued while pending; finished (awaiting input for a paused run) with the outcome's usage once ended", () => {
    expect(summaryOfRecord({ ...record, status: "pending", epoch: 0 })).toMatchObject({ status: "pending", activity: { kind: "queued" }, ended_at: null, outcome: null, stop_reasons: [] });
    const outcome = { contract: "status", version: 2, status: "partial", stopReasons: [{ reason: "turn_capped", by: "kernel" }], text: "x", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } } as const;
    const ended = summaryOfRecord({ ...record, status: "success", outcome: { ...outcome, stopReasons: [...outcome.stopReasons] }, updatedAt: "2026-01-01T00:01:00.000Z" }, { turns: 4, tokens: { input: 1, output: 1, total: 2 }, activity: { kind: "model" } });
    expect(ended).toMatchObject({ status: "success", stop_reasons: ["turn_capped"], turns: 4, tokens: { input: 3, output: 2, total: 5 }, ended_at: "2026-01-01T00:01:00.000Z", activity: { kind: "finished" } });
    const paused = summaryOfRecord({ ...record, status: "interrupted", outcome: { ...outcome, stopReasons: [{ reason: "awaiting_input", by: "human-approval" }] } });
    expect(paused.activity.kind).toBe("awaiting_input");
  });
});
