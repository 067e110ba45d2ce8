import { describe, expect, it } from "vitest";
import type { ScenarioV1, ScriptedTurn } from "../../contracts/scenario/v1.js";
import tokenBudget from "../../plugins/token-budget/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incident: an agent kept calling tools until its context and bill exploded, and was cut
 * off with nothing to show. With token-budget it is warned at 70 %, stopped at 85 %, and
 * its final answer is paid from the 15 % reserve.
 */
function bigSpender(perTurn: number, toolTurns: number): ScenarioV1 {
  const usage = { input_tokens: perTurn - 500, output_tokens: 500 };
  const turns: ScriptedTurn[] = [
    ...Array.from({ length: toolTurns }, (_, i) => ({ toolCalls: [{ name: "ls", args: { path: `dir${i}` } }], usage })),
    { content: "Partial findings: the first directories are listed.", usage },
  ];
  return {
    contract: "scenario",
    version: 1,
    name: `token-budget incident (${perTurn} tokens per turn)`,
    stack: { name: "test", plugins: ["workspace"] },
    config: { "token-budget": { limit: 10000 } },
    input: "Survey every directory",
    agents: { lead: { turns, then: "repeat-last" } },
  };
}

const guardEvents = (report: RunReport) =>
  report.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === "token-budget").map((e) => e.data as { action: string; reason: string; detail: string });
const warningIndex = (report: RunReport) =>
  report.modelRequests.flatMap((r, i) => (r.messages.some((m) => m.content.startsWith("[TOKEN BUDGET WARNING]")) ? [i] : []));

describe("token-budget incident: a run that spends past its budget", () => {
  it("2,000 tokens a turn, limit 10,000: warned after turn 4, stopped at turn 5, final answer from the reserve", async () => {
    const report = await runScenario(bigSpender(2000, 5), { plugins: [tokenBudget] });

    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.text).toBe("Partial findings: the first directories are listed.");
    expect(report.outcome.stopReasons).toEqual([
      {
        reason: "token_capped",
        by: "token-budget",
        turn: 5,
        detail: "used 10000 of 10000 tokens (100%); 15% of the limit is kept for the final answer",
        limit: { type: "tokens", value: 10000 },
      },
    ]);
    // Five calls with tools, then one forced final call with none.
    expect(report.modelRequests.map((r) => r.tools.length > 0)).toEqual([true, true, true, true, true, false]);
    expect(report.usage.totalTokens).toBe(12000);
    expect(report.usage.totalTokens).toBeLessThanOrEqual(10000 + 2000);
    // The 5th call's tool call was stripped: only 4 tool results.
    expect(report.messages.filter((m) => m.role === "tool")).toHaveLength(4);

    expect(guardEvents(report).map((e) => [e.action, e.detail])).toEqual([
      ["warn", "used 8000 of 10000 tokens (80%)"],
      ["stop", "used 10000 of 10000 tokens (100%); 15% of the limit is kept for the final answer"],
    ]);
    // The warning rides at the end of the request after the crossing (request 5), hidden, once.
    expect(warningIndex(report)).toEqual([4]);
    const warned = report.modelRequests[4]!.messages.at(-1)!;
    expect(warned).toMatchObject({ role: "user", hidden: true });
    expect(warned.content).toContain("used 8000 of 10000 tokens (80%)");
    expect(report.messages.some((m) => m.content.startsWith("[TOKEN BUDGET WARNING]"))).toBe(false);
  });

  it("3,000 tokens a turn: warning and stop at the same turn, the warning event happens once", async () => {
    const report = await runScenario(bigSpender(3000, 3), { plugins: [tokenBudget] });

    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.turn, r.limit])).toEqual([["token_capped", 3, { type: "tokens", value: 10000 }]]);
    expect(report.modelRequests).toHaveLength(4);
    expect(report.modelRequests[3]!.tools).toEqual([]);
    expect(report.usage.totalTokens).toBe(12000);
    expect(report.usage.totalTokens).toBeLessThanOrEqual(10000 + 3000);
    expect(guardEvents(report).map((e) => e.action)).toEqual(["warn", "stop"]);
    // No warning message: the next call is the forced one, which the kernel explains.
    expect(warningIndex(report)).toEqual([]);
  });

  it("stays silent under the warning threshold", async () => {
    const report = await runScenario(bigSpender(1000, 4), { plugins: [tokenBudget] });
    expect(report.outcome.status).toBe("succeeded");
    expect(report.usage.totalTokens).toBe(5000);
    expect(guardEvents(report)).toEqual([]);
  });
});
