import { describe, expect, it } from "vitest";
import type { ScenarioV1, ScriptedToolCall } from "../../contracts/scenario/v1.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * The frequency guard vs delegation: loop-detection's per-tool frequency (warn 30, stop 50)
 * does not count `task`, so a lead can reach batch-leasing's full `total` of 50 subagents.
 * Calls over batch-leasing's limits are refused (error result + failed ledger entry), never
 * stripped without entries.
 */
type Entry = { id: string; status: string; stopReasons?: Array<{ reason: string; by: string; limit?: { type: string; value: number } }> };

const task = (id: string): ScriptedToolCall => ({ name: "task", id, args: { description: `fact ${id}`, prompt: `Write one sentence about fact ${id}.`, subagentType: "general-purpose" } });
const batch = (from: number, size: number) => Array.from({ length: size }, (_, i) => task(`t${from + i}`));

/** Twelve batches of four and one of two: 50 distinct task calls; `extra` more calls in one further batch. */
function scenario(extra: number, config: ScenarioV1["config"] = {}): ScenarioV1 {
  const turns = Array.from({ length: 12 }, (_, b) => ({ toolCalls: batch(4 * b + 1, 4) }));
  turns.push({ toolCalls: batch(49, 2) });
  if (extra > 0) turns.push({ toolCalls: batch(51, extra) });
  return {
    contract: "scenario",
    version: 1,
    name: `delegation: fifty subagents in batches, ${extra} over`,
    stack: "lead",
    config: { "batch-leasing": { total: 50, concurrency: 4 }, ...config },
    input: "Collect fifty facts, one subagent per fact.",
    agents: {
      lead: { turns: [...turns, { content: "Fifty facts collected." }] },
      "general-purpose": {
        turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "One sentence, from memory.", completedSteps: ["write the sentence"], missingSteps: [] } }] }],
      },
    },
  } as ScenarioV1;
}

const entries = (report: RunReport) => report.delegations as Entry[];
const guards = (report: RunReport, plugin: string) =>
  report.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === plugin).map((e) => e.data as { action: string; reason: string });
const taskResults = (report: RunReport) => report.messages.filter((m) => m.role === "tool" && /^t\d+$/.test(m.toolCallId ?? ""));
const taskCalls = (report: RunReport) => report.messages.flatMap((m) => (m.toolCalls ?? []).filter((c) => c.name === "task"));

describe("delegation: 50 subagents are reachable past loop-detection's frequency guard", () => {
  it("a lead delegating in batches reaches total 50: 50 children, all in the ledger, no loop-detection warning or stop", async () => {
    const report = await runScenario(scenario(0));

    const all = entries(report);
    expect(all).toHaveLength(50);
    expect(all.every((d) => d.status === "succeeded")).toBe(true);
    expect(new Set(all.map((d) => d.id)).size).toBe(50);
    // Nothing was stripped: all 50 task calls are in the thread, each with one result.
    const calls = taskCalls(report);
    expect(calls).toHaveLength(50);
    const results = taskResults(report);
    expect(results.map((m) => m.toolCallId).sort()).toEqual(calls.map((c) => c.id).sort());
    // loop-detection neither warned (30 calls) nor stopped (50 calls) on `task`.
    expect(guards(report, "loop-detection")).toEqual([]);
    expect(report.outcome.stopReasons).toEqual([]);
    expect(report.outcome.status).toBe("succeeded");
    expect(report.turns.lead).toBe(14);
    expect(Object.keys(report.turns).filter((k) => k.startsWith("lead/"))).toHaveLength(50);
  });

  it("a batch over the limit is answered by batch-leasing refusals with failed ledger entries, never stripped", async () => {
    const report = await runScenario(scenario(2));

    const refused = entries(report).filter((d) => d.status === "failed");
    expect(refused.map((d) => d.id)).toEqual(["t51", "t52"]);
    for (const d of refused) {
      expect(d.stopReasons).toEqual([
        { reason: "subagent_limit_capped", by: "batch-leasing", turn: 14, detail: "this run may start at most 50 subagents, and 50 were started", limit: { type: "subagents", value: 50 } },
      ]);
    }
    const calls = taskCalls(report);
    expect(calls).toHaveLength(52);
    const results = taskResults(report);
    expect(results).toHaveLength(52);
    expect(results.filter((m) => m.status === "error").map((m) => m.toolCallId)).toEqual(["t51", "t52"]);
    expect(results.find((m) => m.toolCallId === "t51")!.content.startsWith("[subagent_limit_capped] This task was not started")).toBe(true);
    expect(guards(report, "loop-detection")).toEqual([]);
    expect(guards(report, "batch-leasing").map((g) => [g.action, g.reason])).toEqual([
      ["refuse", "subagent_limit_capped"],
      ["refuse", "subagent_limit_capped"],
    ]);
    // No call of that batch was granted: the lead gets the stop reason and one forced final answer.
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.by])).toEqual([["subagent_limit_capped", "batch-leasing"]]);
    expect(report.outcome.status).toBe("partial");
    expect(Object.keys(report.turns).filter((k) => k.startsWith("lead/"))).toHaveLength(50);
  });

  it("with `frequencyExempt: []` the 50th task call is loop_capped: its batch is stripped and no ledger entry is written for it", async () => {
    const report = await runScenario(scenario(0, { "loop-detection": { frequencyExempt: [] } }));
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.by])).toEqual([["loop_capped", "loop-detection"]]);
    // 48 children ran; the last batch (calls 49 and 50) was stripped, unrecorded.
    expect(entries(report)).toHaveLength(48);
    expect(taskCalls(report)).toHaveLength(48);
  });
});
