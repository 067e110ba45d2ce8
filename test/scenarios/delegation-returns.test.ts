import { beforeAll, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incidents: children that claimed success with a payload nobody could use, and "partial"
 * results missing the one step the caller needed. A return is the worse of the child's
 * claim and what the runtime saw; schema failures fail closed; a partial is accepted only
 * by rule (critical path, verification handle, inventory).
 */
type Entry = { id: string; status: string; schemaValid: boolean | null; stopReasons: Array<{ reason: string }>; resultBrief: string };
let report: RunReport;
const entry = (id: string) => (report.delegations as Entry[]).find((d) => d.id === id)!;
const toolText = (id: string) => report.messages.find((m) => m.role === "tool" && m.toolCallId === id)!;

beforeAll(async () => {
  const { scenario, baseDir } = loadScenarioFile("test/scenarios/delegation-returns.json");
  report = await runScenario(scenario, { baseDir });
});

describe("delegation returns judged by rule", () => {
  it("fails a payload that does not match the caller's outputSchema, whatever the child said", () => {
    const d = entry("schema");
    expect(d.status).toBe("failed");
    expect(d.schemaValid).toBe(false);
    expect(d.resultBrief.split("\n")[0]).toBe("Task failed. Error: payload does not match the caller's outputSchema (/count: must be integer)");
    expect(toolText("schema").status).toBe("error");
  });

  it("fails a capped partial whose missing step is on the caller's critical path, keeping its inventory", () => {
    const d = entry("critical");
    expect(d.status).toBe("failed");
    expect(d.schemaValid).toBeNull();
    expect(d.stopReasons.map((r) => r.reason)).toEqual(["turn_capped"]);
    const lines = d.resultBrief.split("\n");
    expect(lines[0]).toBe("Task failed (capped: turn budget). Error: partial not accepted: missing step `write report.md` is on the caller's critical path");
    expect(lines).toContain("Completed steps: read notes.md");
    expect(lines).toContain("Missing steps: write report.md (stopped at: write report.md)");
  });

  it("accepts a capped partial off the critical path with a verification handle", () => {
    const d = entry("offpath");
    expect(d.status).toBe("partial");
    expect(d.resultBrief.split("\n")[0]).toBe("Task Succeeded (capped: turn budget). Result: Wrote summary.md [r1 write_file]; did not add the sources section.");
    expect(report.workspace.files["summary.md"]).toBeDefined();
    expect(toolText("offpath").status).toBe("success");
  });

  it("shows a turn-capped child without a result as `Task failed (capped: turn budget). Error: Reached max_turns=N`", () => {
    const d = entry("turncap");
    expect(d.status).toBe("failed");
    expect(d.resultBrief).toBe("Task failed (capped: turn budget). Error: Reached max_turns=3");
    expect(report.turns["lead/turncap"]).toBe(3);
  });

  it("shows a token-capped child that returned in its forced call as `Task Succeeded (capped: token budget)`", () => {
    const d = entry("tokencap");
    expect(d.status).toBe("partial");
    expect(d.stopReasons.map((r) => r.reason)).toEqual(["token_capped"]);
    expect(d.resultBrief.split("\n")[0]).toBe("Task Succeeded (capped: token budget). Result: High tide 06:12, low tide 12:25 [r1 read_file].");
    // Its lease's allowance (3 M / 6 = 500,000) became its token limit: capped at 85 %.
    const capped = report.events.find((e) => e.event === "guard" && (e.data as { agent: string; action: string }).agent === "lead/tokencap" && (e.data as { action: string }).action === "stop");
    expect((capped!.data as { detail: string }).detail).toContain("of 500000 tokens");
  });

  it("leaves the lead's own outcome to the lead: children's stop reasons stay on their entries", () => {
    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.stopReasons).toEqual([]);
    expect((report.delegations as Entry[]).map((d) => d.id)).toEqual(["schema", "critical", "offpath", "turncap", "tokencap"]);
  });
});
