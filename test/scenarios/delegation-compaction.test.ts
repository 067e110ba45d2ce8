import { describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

type Request = RunReport["modelRequests"][number];
type Entry = { id: string; status: string; stopReasons?: Array<{ reason: string; by: string; limit?: { type: string; value: number } }> };

async function run(name: string): Promise<RunReport> {
  const { scenario, baseDir } = loadScenarioFile(`test/scenarios/${name}.json`);
  return runScenario(scenario, { baseDir });
}

const durableData = (request: Request) => request.messages.find((m) => m.hidden && m.content.startsWith("<durable_context_data>"))?.content ?? "";
const taskCallIds = (request: Request) => request.messages.flatMap((m) => (m.toolCalls ?? []).filter((c) => c.name === "task").map((c) => c.id));

/** Provider grammar: one leading system message, then never an assistant or tool message first; every call answered, no orphan result. */
function grammarProblems(request: Request): string[] {
  const problems: string[] = [];
  const roles = request.messages.map((m) => m.role);
  if (roles[0] !== "system") problems.push("does not start with a system message");
  if (roles.filter((r) => r === "system").length !== 1) problems.push("has more than one system message");
  const firstAfterSystem = roles.find((r) => r !== "system");
  if (firstAfterSystem === "assistant" || firstAfterSystem === "tool") problems.push(`history starts with ${firstAfterSystem}`);
  const calls = new Set(request.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  const results = new Set(request.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  for (const id of calls) if (!results.has(id)) problems.push(`call ${id} has no result`);
  for (const id of results) if (!calls.has(id!)) problems.push(`result ${id} has no call`);
  return problems;
}

describe("incident: a lead re-delegates the same research after compaction", () => {
  it("sees the ledger in the request where it re-delegates; the run total answers excess calls with subagent_limit_capped", async () => {
    const report = await run("delegation-redelegation");
    const lead = report.modelRequests.filter((r) => r.agent === "lead");

    // The 4th request was compacted: the first task call and its result are gone from the history…
    const redelegating = lead.find((r) => r.turn === 4)!;
    expect(taskCallIds(redelegating)).toEqual([]);
    expect(redelegating.messages.some((m) => m.hidden && m.content.startsWith("[Earlier conversation summarized"))).toBe(true);
    // …but the durable ledger still shows the research as delegated and done, with its result.
    const ledger = durableData(redelegating);
    expect(ledger).toContain("## Work already delegated");
    expect(ledger).toContain("- [succeeded] research harbour tides (via general-purpose; reuse this result) -> Task Succeeded. Result: High tide 06:12");
    expect(redelegating.messages[0]!.content).toContain("The delegation ledger is authoritative about what was delegated and how each execution ended: do not delegate again");

    // The repeated delegation ran (the run total allows two) and is itself on the ledger next turn.
    const after = lead.find((r) => r.turn === 5)!;
    expect(durableData(after).match(/- \[succeeded\] research harbour tides \(via general-purpose/g)).toHaveLength(2);

    // Further calls exceed the run total (2): answered, recorded, and the lead must finish.
    const entries = report.delegations as Entry[];
    expect(entries.map((d) => [d.id, d.status])).toEqual([["r1", "succeeded"], ["r2", "succeeded"], ["r3", "failed"], ["r4", "failed"]]);
    for (const d of entries.slice(2)) expect(d.stopReasons![0]).toMatchObject({ reason: "subagent_limit_capped", by: "batch-leasing", limit: { type: "subagents", value: 2 } });
    const results = report.messages.filter((m) => m.role === "tool" && ["r3", "r4"].includes(m.toolCallId!));
    expect(results.map((m) => [m.status, m.content.startsWith("[subagent_limit_capped]")])).toEqual([["error", true], ["error", true]]);
    expect(report.outcome.stopReasons.map((r) => r.reason)).toEqual(["subagent_limit_capped"]);
    expect(lead.at(-1)!.tools).toEqual([]);
    expect(report.turns).toMatchObject({ lead: 6, "lead/r1": 1, "lead/r2": 1 });

    // Every lead request after the first (which has nothing to project yet) keeps the provider grammar.
    for (const request of lead.slice(1)) expect([request.turn, grammarProblems(request)]).toEqual([request.turn, []]);
  });
});

describe("incident: a subagent's three parallel tool calls compacted to a short tail", () => {
  it("sends every child request with one leading system message, never assistant- or tool-first, every call answered", async () => {
    const report = await run("delegation-parallel-compaction");
    const child = report.modelRequests.filter((r) => r.agent === "lead/p1");
    expect(child).toHaveLength(4);
    for (const request of child) expect([request.turn, grammarProblems(request)]).toEqual([request.turn, []]);

    // Turn 2: only the task prompt lies before the block, and the task is never summarized away: no compaction yet.
    expect(child[1]!.messages.some((m) => m.content.startsWith("[Earlier conversation summarized"))).toBe(false);
    // The tail kept after compaction is the whole parallel block: one assistant message, three results,
    // after the task prompt (pinned verbatim by summarization).
    const compacted = child.slice(2);
    for (const request of compacted) {
      expect(request.messages.some((m) => m.hidden && m.content.startsWith("[Earlier conversation summarized"))).toBe(true);
      const tail = request.messages.filter((m) => !m.hidden && m.role !== "system");
      expect(tail.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "tool"]);
      expect(tail[0]!.content).toBe("Read a.md, b.md and c.md and compare them.");
      tail.shift();
      expect(tail[0]!.toolCalls).toHaveLength(3);
    }
    expect((report.delegations as Entry[]).map((d) => [d.id, d.status])).toEqual([["p1", "succeeded"]]);
    // Compaction removed messages, never receipts: the report's citations still resolve.
    expect(report.delegations[0]!.receiptVerdict).toMatchObject({ resolved: ["r1", "r2", "r3"], failed: [], unknown: [] });
  });
});
