import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { toolProgressPlugin } from "../../plugins/tool-progress/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/**
 * Incident: a tool that can never succeed (a file that does not exist) called again and
 * again until the turn budget runs out, each call wasting a turn.
 */
const incident: ScenarioV1 = {
  contract: "scenario",
  version: 1,
  name: "incident-tool-progress",
  stack: { contract: "stack", version: 1, name: "test", plugins: ["workspace"] },
  maxTurns: 10,
  input: "Summarize report.md",
  agents: { lead: { turns: [{ toolCalls: [{ name: "read_file", args: { path: "report.md" } }] }], then: "repeat-last" } },
};

describe("scenario: a tool that always fails is blocked (tool-progress)", () => {
  it("blocks read_file at the 5th failure; later calls are refused without running; the turn cap ends the run", async () => {
    const report = await runScenario(incident, { plugins: [toolProgressPlugin] });
    const results = report.messages.filter((m) => m.role === "tool");
    // Turns 1–9 call read_file; turn 10 is the forced final call (tools stripped).
    expect(results).toHaveLength(9);
    expect(results.every((r) => r.status === "error")).toBe(true);

    const ranMessage = "`report.md` does not exist";
    expect(results[0]!.content).toBe(ranMessage);
    expect(results[1]!.content).toBe(ranMessage);
    // The hints are not in the tool results: each goes to the next model request, as a hidden user message at its end.
    expect(results[2]!.content).toBe(ranMessage);
    expect(results[3]!.content).toBe(ranMessage);
    const lastOf = (turn: number) => report.modelRequests.find((r) => r.turn === turn)!.messages.at(-1)!;
    for (const turn of [1, 2, 3, 6]) expect(lastOf(turn).role, `turn ${turn}`).toBe(turn === 1 ? "user" : "tool");
    expect(lastOf(4)).toMatchObject({ role: "user", hidden: true });
    expect(lastOf(4).content).toMatch(/^\[TOOL_PROGRESS\] `read_file` has failed or repeated itself 3 times in a row; change strategy/);
    expect(lastOf(5)).toMatchObject({ role: "user", hidden: true });
    expect(lastOf(5).content).toMatch(/^\[TOOL_PROGRESS\] `read_file` has failed or repeated itself 4 times in a row;.*After 1 more such result it will be blocked/s);
    // The thread keeps no hint: it was request data only.
    expect(report.messages.filter((m) => m.content.includes("[TOOL_PROGRESS]"))).toEqual([]);

    const reason =
      "`read_file` has failed or repeated itself 5 times in a row (last: `report.md` does not exist); it is blocked for the rest of this run — change strategy or report what is missing";
    expect(results[4]!.content).toBe(`[TOOL_BLOCKED] ${reason}\n\nThis call's result:\n${ranMessage}`);
    // The 6th and later calls never reached the file tool: no file-system error text, only the refusal.
    for (const refused of results.slice(5)) expect(refused.content).toBe(`[TOOL_BLOCKED] ${reason}`);

    expect(report.outcome.stopReasons).toEqual([
      { reason: "progress_blocked", by: "tool-progress", turn: 5, detail: reason },
      { reason: "turn_capped", by: "kernel", turn: 10, limit: { type: "turns", value: 10 } },
    ]);
    expect(report.outcome.primaryStopReason).toBe("progress_blocked");
    expect(report.outcome.status).toBe("failed");
    expect(report.turns).toEqual({ lead: 10, total: 10 });

    const guards = report.events.filter((e) => e.event === "guard").map((e) => e.data as Record<string, unknown>);
    expect(guards.map((g) => g.action)).toEqual(["warn", "warn", "block", "refuse", "refuse", "refuse", "refuse"]);
    expect(guards[2]).toEqual({ plugin: "tool-progress", agent: "lead", action: "block", reason: "progress_blocked", detail: reason });
  });
});
