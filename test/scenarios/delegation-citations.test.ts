import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../kernel/hashing.js";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incident: a child's report claimed actions it never took. Every completed child's report
 * is checked against the receipts it was shown: a citation resolves only when the receipt
 * exists, succeeded and names the cited tool. The verdict lives in the delegation entry (and
 * the task message's metadata) and reaches the lead as a whole sub-line of its ledger entry,
 * never inside the result text or its hash.
 */
type Verdict = { citationResolved: boolean; cited: string[]; resolved: string[]; failed: Array<{ id: string; reason: string }>; unknown: string[]; noCitationClaims: boolean };
type Entry = { id: string; status: string; resultBrief: string; resultSha256?: string; receiptVerdict?: Verdict };

let report: RunReport;
const entry = (id: string) => (report.delegations as Entry[]).find((d) => d.id === id)!;
const toolText = (id: string) => report.messages.find((m) => m.role === "tool" && m.toolCallId === id)!.content;
/** The lines of the lead's ledger entry for `description` in its second request (after the three tasks ended). */
const ledgerEntry = (description: string) => {
  const request = report.modelRequests.find((r) => r.agent === "lead" && r.turn === 2)!;
  const data = request.messages.find((m) => m.hidden && m.content.startsWith("<durable_context_data>"))!.content.split("\n");
  const at = data.findIndex((line) => line.startsWith(`- [succeeded] ${description} (`));
  const end = data.findIndex((line, i) => i > at && !line.startsWith("  "));
  return data.slice(at, end);
};

beforeAll(async () => {
  const { scenario, baseDir } = loadScenarioFile("test/scenarios/delegation-citations.json");
  report = await runScenario(scenario, { baseDir });
});

describe("citations in children's reports", () => {
  it("resolves `[r1 write_file]` against the child's own receipt", () => {
    expect(entry("cited").receiptVerdict).toEqual({
      source: "receipt_citations", citationResolved: true, cited: ["r1"], resolved: ["r1"], failed: [], unknown: [], noCitationClaims: false,
    });
    expect(ledgerEntry("cited report").slice(1)).toEqual(["  - citations: 1 resolved, 0 failed, 0 unknown — execution evidence only, does not validate claim correctness"]);
    expect(report.receipts["lead/cited"]!.map((r) => [r.id, r.tool, r.status])).toEqual([["r1", "write_file", "success"], ["r2", "return_result", "success"]]);
  });

  it("marks an uncited `I wrote the report` as UNVERIFIED", () => {
    expect(entry("uncited").receiptVerdict).toMatchObject({ citationResolved: false, cited: [], noCitationClaims: true });
    expect(ledgerEntry("uncited report").slice(1)).toEqual(["  - citations: UNVERIFIED — action claims without receipt citations"]);
  });

  it("fails a wrong anchor and reports an unknown id as unknown", () => {
    const verdict = entry("wrong").receiptVerdict!;
    expect(verdict.failed).toEqual([{ id: "r1", reason: "anchor mismatch: cited as bash, receipt r1 is write_file" }]);
    expect(verdict.unknown).toEqual(["r7"]);
    expect(verdict.resolved).toEqual([]);
    expect(verdict.citationResolved).toBe(false);
    expect(ledgerEntry("miscited report").slice(1)).toEqual(["  - citations: 0 resolved, 1 failed, 1 unknown — execution evidence only, does not validate claim correctness"]);
  });

  it("keeps the verdict out of the result text the lead reads and out of resultSha256 (the child's own text only)", () => {
    const texts: Record<string, string> = { cited: "Wrote a.md [r1 write_file].", uncited: "I wrote the report.", wrong: "Wrote c.md [r1 bash] and checked it [r7 read_file]." };
    for (const [id, text] of Object.entries(texts)) {
      expect(toolText(id)).toBe(`Task Succeeded. Result: ${text}\nCompleted steps: write ${id === "cited" ? "a" : id === "uncited" ? "b" : "c"}.md\nMissing steps: none`);
      expect(toolText(id)).not.toContain("citations:");
      expect(entry(id).resultBrief).not.toContain("citations:");
      expect(entry(id).resultSha256).toBe(sha256Hex(text));
    }
  });

  it("tells each child to use [rN] only for its own tool calls and to cite web sources as [citation:Title](URL)", () => {
    const system = report.modelRequests.find((r) => r.agent === "lead/cited" && r.turn === 1)!.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("- Use `[rN]` only for your own tool calls, the receipts listed in your `## Tool receipts` section;");
    expect(system.content).toContain("- Cite an external web source as `[citation:Title](URL)`, never as `[rN]`.");
  });

  it("shows each child its own receipts (render `always` in the subagent stack)", () => {
    const returning = report.modelRequests.find((r) => r.agent === "lead/wrong" && r.turn === 2)!;
    const ledger = returning.messages.find((m) => m.hidden && m.content.startsWith("## Tool receipts"))!;
    expect(ledger.content).toContain("- [r1] write_file status=success");
  });
});
