import { beforeAll, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incident: a child's report claimed actions it never took. Every completed child's report
 * is checked against the receipts it was shown: a citation resolves only when the receipt
 * exists, succeeded and names the cited tool.
 */
type Verdict = { citationResolved: boolean; cited: string[]; resolved: string[]; failed: Array<{ id: string; reason: string }>; unknown: string[]; noCitationClaims: boolean };
type Entry = { id: string; status: string; resultBrief: string; receiptVerdict?: Verdict };

let report: RunReport;
const entry = (id: string) => (report.delegations as Entry[]).find((d) => d.id === id)!;
const lastLine = (id: string) => entry(id).resultBrief.split("\n").at(-1);

beforeAll(async () => {
  const { scenario, baseDir } = loadScenarioFile("test/scenarios/delegation-citations.json");
  report = await runScenario(scenario, { baseDir });
});

describe("citations in children's reports", () => {
  it("resolves `[r1 write_file]` against the child's own receipt", () => {
    expect(entry("cited").receiptVerdict).toEqual({
      source: "receipt_citations", citationResolved: true, cited: ["r1"], resolved: ["r1"], failed: [], unknown: [], noCitationClaims: false,
    });
    expect(lastLine("cited")).toBe("citations: 1 resolved, 0 failed, 0 unknown — execution evidence only, does not validate claim correctness");
    expect(report.receipts["lead/cited"]!.map((r) => [r.id, r.tool, r.status])).toEqual([["r1", "write_file", "success"], ["r2", "return_result", "success"]]);
  });

  it("marks an uncited `I wrote the report` as UNVERIFIED", () => {
    expect(entry("uncited").receiptVerdict).toMatchObject({ citationResolved: false, cited: [], noCitationClaims: true });
    expect(lastLine("uncited")).toBe("citations: UNVERIFIED — action claims without receipt citations");
  });

  it("fails a wrong anchor and reports an unknown id as unknown", () => {
    const verdict = entry("wrong").receiptVerdict!;
    expect(verdict.failed).toEqual([{ id: "r1", reason: "anchor mismatch: cited as bash, receipt r1 is write_file" }]);
    expect(verdict.unknown).toEqual(["r7"]);
    expect(verdict.resolved).toEqual([]);
    expect(verdict.citationResolved).toBe(false);
    expect(lastLine("wrong")).toBe("citations: 0 resolved, 1 failed, 1 unknown — execution evidence only, does not validate claim correctness");
  });

  it("shows each child its own receipts (render `always` in the subagent stack)", () => {
    const returning = report.modelRequests.find((r) => r.agent === "lead/wrong" && r.turn === 2)!;
    const ledger = returning.messages.find((m) => m.hidden && m.content.startsWith("## Tool receipts"))!;
    expect(ledger.content).toContain("- [r1] write_file status=success");
  });
});
