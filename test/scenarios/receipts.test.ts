import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { canonicalJson } from "../../kernel/hashing.js";
import { checkCitations, receiptsPlugin, renderCitationSummary, type Receipt } from "../../plugins/receipts/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

const sha16 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);
const sha64 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Incident: an agent's final report claims actions it never took ("ran the tests") next
 * to ones it did, and the caller cannot tell them apart. With receipts, every tool call
 * leaves a runtime-stamped receipt the model is shown, and the report's citations are
 * checked against exactly that ledger.
 */
const REPORT = "Wrote report.md [r1 write_file], read the spec [r2 read_file], and ran the tests [r3 bash]: all pass.";
const writeArgs = { path: "report.md", content: "# Report\nAll good.\n" };

function scenario(config: ScenarioV1["config"] = {}): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name: "receipts-fabricated-claims",
    stack: { name: "test", plugins: ["workspace"] },
    input: "Write report.md from spec.md and run the tests.",
    config,
    agents: {
      lead: {
        turns: [
          {
            toolCalls: [
              { id: "c-write", name: "write_file", args: writeArgs },
              { id: "c-read", name: "read_file", args: { path: "spec.md" } },
            ],
          },
          { content: REPORT },
        ],
      },
    },
  };
}

/** The receipts listed in the hidden ledger of the last model request (what the model was shown). */
function ledgerShown(report: RunReport): Receipt[] {
  const last = report.modelRequests.at(-1)!;
  const ledger = last.messages.find((m) => m.hidden && m.content.startsWith("## Tool receipts (execution record)"));
  if (!ledger) return [];
  const ids = [...ledger.content.matchAll(/^- \[(r\d+)\] /gm)].map((m) => m[1]);
  return (report.receipts.lead as Receipt[]).filter((r) => ids.includes(r.id));
}

describe("scenario: a report claims an action it never took", () => {
  it("stamps runtime receipts, shows them to the model, and the citation check exposes the fabricated and failed claims", async () => {
    const report = await runScenario(scenario(), { plugins: [receiptsPlugin] });
    expect(report.outcome.status).toBe("succeeded");
    expect(report.workspace.files["report.md"]).toEqual({ bytes: 19, sha256: sha64(writeArgs.content) });

    const toolText = (id: string) => report.messages.find((m) => m.role === "tool" && m.toolCallId === id)!.content;
    expect(toolText("c-write")).toBe("wrote 19 bytes to report.md");
    expect(report.receipts.lead).toEqual([
      { id: "r1", toolCallId: "c-write", tool: "write_file", status: "success", argsSha256: sha16(canonicalJson(writeArgs)), outputSha256: sha16("wrote 19 bytes to report.md"), bytes: 27, createdAt: expect.any(String) },
      { id: "r2", toolCallId: "c-read", tool: "read_file", status: "error", argsSha256: sha16('{"path":"spec.md"}'), outputSha256: sha16(toolText("c-read")), bytes: Buffer.byteLength(toolText("c-read")), createdAt: expect.any(String) },
    ]);

    // The model saw both receipts before writing its report, in a hidden message first in the request.
    const last = report.modelRequests.at(-1)!;
    expect(last.messages[0]).toMatchObject({ role: "user", hidden: true });
    expect(last.messages[0]!.content.split("\n").slice(3)).toEqual([
      expect.stringMatching(/^- \[r1\] write_file status=success args_sha256=[0-9a-f]{16} output_sha256=[0-9a-f]{16} bytes=27$/),
      expect.stringMatching(/^- \[r2\] read_file status=error /),
    ]);
    // Nothing of the ledger was persisted.
    expect(report.messages.some((m) => m.content.includes("## Tool receipts"))).toBe(false);

    const verdict = checkCitations(report.outcome.text, ledgerShown(report));
    expect(verdict).toEqual({
      source: "receipt_citations",
      citationResolved: false,
      cited: ["r1", "r2", "r3"],
      resolved: ["r1"],
      failed: [{ id: "r2", reason: "receipt status=error" }],
      unknown: ["r3"],
      noCitationClaims: false,
    });
    expect(renderCitationSummary(verdict)).toBe("citations: 1 resolved, 1 failed, 1 unknown — execution evidence only, does not validate claim correctness");
  });

  it("delegation_only (the lead's setting): no ledger without a delegation, so nothing the report cites resolves", async () => {
    const report = await runScenario(scenario({ receipts: { render: "delegation_only" } }), { plugins: [receiptsPlugin] });
    expect(report.receipts.lead).toHaveLength(2);
    expect(report.modelRequests.every((r) => r.messages.every((m) => !m.hidden))).toBe(true);
    const verdict = checkCitations(report.outcome.text, ledgerShown(report));
    expect(verdict.unknown).toEqual(["r1", "r2", "r3"]);
    expect(verdict.resolved).toEqual([]);
  });
});
