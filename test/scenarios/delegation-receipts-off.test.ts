import { beforeAll, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../tools/scenario/load-scenario.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Receipts switched off for the whole run (`config.receipts.enabled: false`, the default
 * stacks otherwise): children are asked for verifiable handles instead of receipt
 * citations, and no citation check runs — no UNVERIFIED verdict for receipts that cannot
 * exist. Same scripts as delegation-citations.json.
 */
type Entry = { id: string; status: string; receiptVerdict?: unknown };

let report: RunReport;

beforeAll(async () => {
  const { scenario, baseDir } = loadScenarioFile("test/scenarios/delegation-citations.json");
  report = await runScenario({ ...scenario, name: "delegation: receipts switched off", config: { receipts: { enabled: false } } }, { baseDir });
});

describe("delegation with receipts switched off", () => {
  it("stamps no receipts and makes no citation check: no verdict, no citations line for the lead", () => {
    const entries = report.delegations as Entry[];
    expect(entries.map((d) => [d.id, d.status])).toEqual([["cited", "succeeded"], ["uncited", "succeeded"], ["wrong", "succeeded"]]);
    for (const d of entries) expect(d.receiptVerdict).toBeUndefined();
    expect(Object.values(report.receipts).flat()).toEqual([]);
    const request = report.modelRequests.find((r) => r.agent === "lead" && r.turn === 2)!;
    const data = request.messages.find((m) => m.hidden && m.content.startsWith("<durable_context_data>"))!.content;
    expect(data).toContain("- [succeeded] uncited report (via uncited-writer; reuse this result)");
    expect(data).not.toContain("citations:");
    expect(data).not.toContain("UNVERIFIED");
  });

  it("asks each child for verifiable handles instead of receipt citations", () => {
    const system = report.modelRequests.find((r) => r.agent === "lead/uncited" && r.turn === 1)!.messages[0]!.content;
    expect(system).toContain("This run keeps no tool receipts, so do not write `[rN]` citations. Back every action you claim with a verifiable handle instead: a file path, a URL, a record id, an HTTP status, or a command and its output.");
    expect(system).not.toContain("## Tool receipts");
    expect(system).not.toContain("An action claim without a citation is reported as UNVERIFIED");
  });
});
