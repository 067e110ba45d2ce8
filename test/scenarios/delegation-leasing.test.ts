import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incidents: a lead that fanned out more children than the run could pay for, and a
 * child whose provider call never came back while its parent waited forever. Refused calls
 * are answered (error tool result + failed ledger entry), never dropped; a child that stops
 * making progress loses its lease and ends failed with `lease_expired`.
 */
type Entry = { id: string; status: string; resultBrief: string; stopReasons: Array<{ reason: string; by: string; limit?: { type: string; value: number } }>; lease?: { epoch: number } };

const load = (name: string) => loadScenarioFile(`test/scenarios/${name}.json`);
const entries = (report: RunReport) => report.delegations as Entry[];
const toolResult = (report: RunReport, id: string) => report.messages.find((m) => m.role === "tool" && m.toolCallId === id)!;
const guards = (report: RunReport, plugin: string) =>
  report.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === plugin).map((e) => e.data as { action: string; reason: string });

function task(id: string, subagentType = "general-purpose") {
  return { name: "task", id, args: { description: `fact ${id}`, prompt: `Write fact ${id}.`, subagentType } };
}

describe("batch-leasing: five task calls in one message with concurrency 3", () => {
  it("runs three and answers two with subagent_limit_capped (error tool result + failed entry)", async () => {
    const { scenario, baseDir } = load("delegation-five-tasks");
    const report = await runScenario(scenario, { baseDir });

    const byId = new Map(entries(report).map((d) => [d.id, d]));
    expect(["t1", "t2", "t3", "t4", "t5"].map((id) => byId.get(id)!.status)).toEqual(["succeeded", "succeeded", "succeeded", "failed", "failed"]);
    for (const id of ["t4", "t5"]) {
      expect(byId.get(id)!.stopReasons).toEqual([
        { reason: "subagent_limit_capped", by: "batch-leasing", turn: 1, detail: "at most 3 subagents run per batch, and 3 calls of this message were granted", limit: { type: "subagents", value: 3 } },
      ]);
      const result = toolResult(report, id);
      expect(result.status).toBe("error");
      expect(result.content.startsWith("[subagent_limit_capped] This task was not started")).toBe(true);
      expect(byId.get(id)!.lease).toBeUndefined();
    }
    // Only the granted three ran, each under a lease; every call of the message has exactly one result.
    expect(report.turns).toEqual({ lead: 2, "lead/t1": 1, "lead/t2": 1, "lead/t3": 1, total: 5 });
    expect(["t1", "t2", "t3"].map((id) => byId.get(id)!.lease?.epoch)).toEqual([1, 1, 1]);
    expect(report.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(guards(report, "batch-leasing").map((g) => [g.action, g.reason])).toEqual([
      ["refuse", "subagent_limit_capped"],
      ["refuse", "subagent_limit_capped"],
    ]);
    // Some calls were granted, so the lead goes on uncapped.
    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.stopReasons).toEqual([]);
    expect(report.events.filter((e) => e.event === "task" && (e.data as { phase: string }).phase === "terminal")).toHaveLength(3);
  });

  it("gives the lead the stop reason when no call of a batch is granted (the run total is spent)", async () => {
    const { scenario } = load("delegation-five-tasks");
    const report = await runScenario({
      ...scenario,
      name: "delegation: run total spent",
      config: { "batch-leasing": { total: 2 } },
      agents: {
        ...scenario.agents,
        lead: { turns: [{ toolCalls: [task("a1"), task("a2")] }, { toolCalls: [task("b1"), task("b2")] }, { content: "Two facts; the rest was refused." }] },
      },
    } as ScenarioV1);

    expect(entries(report).map((d) => [d.id, d.status])).toEqual([["a1", "succeeded"], ["a2", "succeeded"], ["b1", "failed"], ["b2", "failed"]]);
    expect(entries(report)[2]!.stopReasons[0]).toMatchObject({ reason: "subagent_limit_capped", limit: { type: "subagents", value: 2 } });
    expect(toolResult(report, "b1").content).toContain("this run may start at most 2 subagents, and 2 were started");
    // The lead is asked to finish: its third call is the forced final one, with no tools.
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.by])).toEqual([["subagent_limit_capped", "batch-leasing"]]);
    expect(report.outcome.status).toBe("partial");
    expect(report.modelRequests.filter((r) => r.agent === "lead").map((r) => r.tools.length > 0)).toEqual([true, true, false]);
    expect(report.turns["lead/b1"]).toBeUndefined();
  });

  it("refuses new spawns with budget_exceeded when the shared budget cannot fund them", async () => {
    const { scenario } = load("delegation-five-tasks");
    const report = await runScenario({
      ...scenario,
      name: "delegation: shared budget spent",
      config: { "batch-leasing": { budget: 120_000, minAllowance: 50_000 } },
      agents: { ...scenario.agents, lead: { turns: [{ toolCalls: [task("c1"), task("c2"), task("c3")] }, { content: "Two facts." }] } },
    } as ScenarioV1);

    expect(entries(report).map((d) => [d.id, d.status])).toEqual([["c3", "failed"], ["c1", "succeeded"], ["c2", "succeeded"]]);
    expect(entries(report)[0]!.stopReasons[0]).toMatchObject({ reason: "budget_exceeded", by: "batch-leasing", limit: { type: "tokens", value: 120_000 } });
    expect(toolResult(report, "c3").content).toContain("[budget_exceeded]");
    expect(toolResult(report, "c3").content).toContain("has 20000 left, below the minimum allowance of 50000");
    // Allowance = max(minAllowance, min(child limit, 120,000 / 6)) = 50,000 each: two fit, 20,000 remain.
    expect(entries(report).slice(1).map((d) => d.lease?.epoch)).toEqual([1, 1]);
    expect(report.turns["lead/c3"]).toBeUndefined();
  });
});

describe("batch-leasing: a hanging child loses its lease", () => {
  it("ends that delegation failed with lease_expired, cancels the child, and the lead goes on", async () => {
    const { scenario, baseDir } = load("delegation-lease-expiry");
    const report = await runScenario(scenario, { baseDir });

    const [slow, quick] = entries(report);
    expect(slow!.id).toBe("t1");
    expect(slow!.status).toBe("failed");
    expect(slow!.stopReasons.map((r) => [r.reason, r.by])).toEqual([["lease_expired", "batch-leasing"]]);
    expect(slow!.resultBrief).toBe("Task failed (capped: lease expired). Error: Lease expired: no heartbeat from the child for 150 ms");
    // The expiry moved the lease to a new epoch: the child's own (stale) end cannot overwrite the entry.
    expect(slow!.lease!.epoch).toBe(2);
    expect(quick!).toMatchObject({ id: "t2", status: "succeeded" });

    expect(toolResult(report, "t1").status).toBe("error");
    expect(guards(report, "subagents")).toEqual([expect.objectContaining({ action: "stop", reason: "lease_expired" })]);
    // The lead made its next call and finished normally.
    expect(report.turns.lead).toBe(2);
    expect(report.outcome).toMatchObject({ status: "succeeded", text: "One fact arrived; the other subagent stopped answering." });
    const terminal = report.events.filter((e) => e.event === "task" && (e.data as { phase: string }).phase === "terminal").map((e) => e.data as { taskId: string; status: string });
    expect(terminal.map((t) => [t.taskId, t.status]).sort()).toEqual([["t1", "failed"], ["t2", "succeeded"]]);
  });
});
