import { describe, expect, it } from "vitest";
import type { DelegationV1 } from "../../../contracts/delegation/v1.js";
import { renderLedgerSummary } from "../../../plugins/acceptance/render.js";
import { checkCitations, renderCitationSummary } from "../../../plugins/receipts/citations.js";
import { GAP_GUIDANCE, GUIDANCE, LEDGER_HEADING, LEDGER_TITLE, renderDelegationLedger, unresolvedAcceptanceLines } from "../../../plugins/durable-context/index.js";

const entry = (n: number, patch: Partial<DelegationV1> = {}): DelegationV1 => ({
  id: `call_${n}`,
  runId: "run-1",
  description: `Task ${n}`,
  subagentType: "general-purpose",
  status: "succeeded",
  createdAt: `2026-01-01T00:00:${String(n).padStart(2, "0")}.000Z`,
  ...patch,
});
const limits = { ledgerChars: 6000, briefChars: 120 };

describe("renderDelegationLedger", () => {
  it("renders newest first with guidance and brief", () => {
    const { text, shown, omitted } = renderDelegationLedger(
      [
        entry(1, { status: "succeeded", resultBrief: "Found three sources.\nAll cited." }),
        entry(2, { status: "in_progress", description: "Research the  API\nlimits" }),
        entry(3, { status: "failed", stopReasons: [{ reason: "subagent_limit_capped", by: "batch-leasing" }] }),
      ],
      limits,
    );
    expect(text.split("\n")).toEqual([
      LEDGER_TITLE,
      "Completed means execution ended, not task acceptance: a `succeeded` entry's citations and acceptance lines say what is evidenced.",
      `- [failed] Task 3 (via general-purpose; ${GUIDANCE.failed}) -> stopped: subagent_limit_capped`,
      `- [in_progress] Research the API limits (via general-purpose; ${GUIDANCE.in_progress})`,
      `- [succeeded] Task 1 (via general-purpose; ${GUIDANCE.succeeded}) -> Found three sources. All cited.`,
    ]);
    expect([shown, omitted]).toEqual([["call_3", "call_2", "call_1"], 0]);
  });

  it("gives each status its guidance", () => {
    expect(GUIDANCE).toEqual({
      in_progress: "already delegated; do NOT delegate again; wait for or build on the result",
      succeeded: "reuse this result",
      partial: "may retry with a changed plan",
      failed: "may retry with a changed plan",
      cancelled: "may retry with a changed plan",
      timed_out: "may retry with a changed plan",
    });
  });

  it("cuts briefs to briefChars", () => {
    const { text } = renderDelegationLedger([entry(1, { resultBrief: "x".repeat(500) })], { ledgerChars: 6000, briefChars: 120 });
    const brief = text.split(" -> ")[1]!;
    expect(brief).toHaveLength(120);
    expect(brief.endsWith("…")).toBe(true);
  });

  it("keeps the newest entries within the budget and counts the older ones", () => {
    const entries = Array.from({ length: 60 }, (_, i) => entry(i + 1, { resultBrief: "r".repeat(100) }));
    const { text, shown, omitted } = renderDelegationLedger(entries, { ledgerChars: 1000, briefChars: 120 });
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(shown[0]).toBe("call_60");
    expect(shown).toEqual(entries.slice(60 - shown.length).map((e) => e.id).reverse());
    expect(omitted).toBe(60 - shown.length);
    expect(omitted).toBeGreaterThan(0);
    expect(text.split("\n").at(-1)).toBe(`- ${omitted} older delegation entries omitted`);
  });

  it("shows nothing for no entries and skips malformed ones", () => {
    expect(renderDelegationLedger([], limits)).toEqual({ text: "", shown: [], omitted: 0 });
    expect(renderDelegationLedger([null, { id: 1 }, "x"], limits).text).toBe("");
  });
});

describe("unresolved acceptance", () => {
  const leaf = (criterion: string, family: string, holds: boolean, detail = "file does not exist") => ({ criterion, family, checked: holds || family !== "undecidable", holds, detail });

  it("keeps one example per family, clipped, and counts the rest", () => {
    const lines = unresolvedAcceptanceLines({
      leaves: [
        leaf("file:a.md exists", "file", false),
        leaf("file:b.md exists", "file", false),
        leaf("tests_passed:npm test", "tests_passed", false, "exit status 1: " + "e".repeat(300)),
        leaf("file:c.md exists", "file", true, "exists, 5 bytes"),
        leaf("the report is good " + "g".repeat(300), "undecidable", false, "not deterministically checkable"),
      ],
    });
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe("  - unresolved acceptance (file): file:a.md exists — file does not exist");
    expect(lines[1]!.split(" — ")[1]).toHaveLength(120);
    expect(lines[2]!.split(": ")[1]!.split(" — ")[0]).toHaveLength(160);
    expect(lines[3]).toBe("  - 1 more unresolved acceptance criterion");
  });

  it("adds nothing when every leaf holds, and renders under the entry", () => {
    expect(unresolvedAcceptanceLines({ leaves: [leaf("file:a.md exists", "file", true)] })).toEqual([]);
    const verdict = { source: "acceptance_checklist" as const, leaves: [leaf("file:a.md exists", "file", false)], unchecked: [], allHold: false };
    const { text } = renderDelegationLedger([entry(1, { status: "partial", acceptanceVerdict: verdict })], limits);
    expect(text.split("\n").slice(2)).toEqual([
      `- [partial] Task 1 (via general-purpose; ${GUIDANCE.partial})`,
      "  - acceptance: 0 hold, 1 does not hold, 0 UNVERIFIED",
      "  - unresolved acceptance (file): file:a.md exists — file does not exist",
    ]);
  });
});

describe("evidence sub-lines and guidance", () => {
  const leaf = (criterion: string, checked: boolean, holds: boolean) => ({ criterion, family: "file", checked, holds: checked && holds, detail: "d" });
  const acceptance = (...leaves: ReturnType<typeof leaf>[]) => ({ source: "acceptance_checklist" as const, leaves, unchecked: leaves.filter((l) => !l.checked).map((l) => l.criterion), allHold: leaves.every((l) => l.checked && l.holds) });
  const receipts = [
    { id: "r1", toolCallId: "c1", tool: "write_file", status: "success" as const, argsSha256: "0".repeat(16), outputSha256: "0".repeat(16), bytes: 1, createdAt: "2026-01-01T00:00:00.000Z" },
    { id: "r2", toolCallId: "c2", tool: "bash", status: "success" as const, argsSha256: "0".repeat(16), outputSha256: "0".repeat(16), bytes: 1, createdAt: "2026-01-01T00:00:00.000Z" },
    { id: "r3", toolCallId: "c3", tool: "bash", status: "error" as const, argsSha256: "0".repeat(16), outputSha256: "0".repeat(16), bytes: 1, createdAt: "2026-01-01T00:00:00.000Z" },
  ];
  const mixed = checkCitations("Wrote a.md [r1 write_file], ran it [r2 bash], tested [r3 bash], checked [r9].", receipts);
  const fourLeaves = acceptance(leaf("file:a exists", true, true), leaf("file:b exists", true, true), leaf("file:c exists", true, false), leaf("the report is good", false, false));

  it("puts the citation and acceptance summaries under the entry, whole, worded as the receipts and acceptance plugins word them", () => {
    const brief = `Task Succeeded. Result: ${"word ".repeat(60)}`;
    const { text } = renderDelegationLedger([entry(1, { resultBrief: brief, receiptVerdict: mixed, acceptanceVerdict: fourLeaves })], limits);
    const lines = text.split("\n").slice(2);
    expect(lines.slice(1, 3)).toEqual([
      "  - citations: 2 resolved, 1 failed, 1 unknown — execution evidence only, does not validate claim correctness",
      "  - acceptance: 2 hold, 1 does not hold, 1 UNVERIFIED",
    ]);
    expect(lines[1]).toBe(`  - ${renderCitationSummary(mixed)}`);
    expect(lines[2]).toBe(`  - ${renderLedgerSummary(fourLeaves)}`);
    // The head's brief is cut at 120 characters; the summaries are not part of it.
    expect(lines[0]!.split(" -> ")[1]).toHaveLength(120);
  });

  it("shows UNVERIFIED for action claims without citations, and nothing for a report with neither citations nor claims", () => {
    const uncited = checkCitations("I wrote the report.", receipts);
    const plain = checkCitations("Tides follow the moon.", receipts);
    const text = renderDelegationLedger([entry(1, { receiptVerdict: uncited }), entry(2, { receiptVerdict: plain })], limits).text.split("\n");
    expect(text.slice(2)).toEqual([
      `- [succeeded] Task 2 (via general-purpose; ${GUIDANCE.succeeded})`,
      `- [succeeded] Task 1 (via general-purpose; ${GUIDANCE.succeeded})`,
      "  - citations: UNVERIFIED — action claims without receipt citations",
    ]);
  });

  it("counts the sub-lines in ledgerChars: an entry that fits only without them is omitted whole, never cut", () => {
    const heavy = (n: number) => entry(n, { resultBrief: "r".repeat(100), receiptVerdict: mixed, acceptanceVerdict: fourLeaves });
    const entries = Array.from({ length: 30 }, (_, i) => heavy(i + 1));
    const { text, shown, omitted } = renderDelegationLedger(entries, { ledgerChars: 2000, briefChars: 120 });
    expect(text.length).toBeLessThanOrEqual(2000);
    const lines = text.split("\n");
    expect(lines.filter((l) => l.startsWith("  - citations: "))).toHaveLength(shown.length);
    expect(lines.filter((l) => l.startsWith("  - acceptance: 2 hold, 1 does not hold, 1 UNVERIFIED"))).toHaveLength(shown.length);
    expect(lines.at(-1)).toBe(`- ${omitted} older delegation entries omitted`);
    expect(omitted).toBe(30 - shown.length);
    // Without the sub-lines more entries would fit: they are counted.
    const bare = renderDelegationLedger(entries.map((e) => ({ ...e, receiptVerdict: undefined, acceptanceVerdict: undefined })), { ledgerChars: 2000, briefChars: 120 });
    expect(bare.shown.length).toBeGreaterThan(shown.length);
  });

  it("gives a succeeded entry with unmet or UNVERIFIED criteria the gap guidance instead of `reuse this result`", () => {
    const unmet = acceptance(leaf("file:a exists", true, true), leaf("file:b exists", true, false));
    const unverified = acceptance(leaf("tests_passed:npm test", false, false));
    const met = acceptance(leaf("file:a exists", true, true));
    const text = renderDelegationLedger([entry(1, { acceptanceVerdict: unmet }), entry(2, { acceptanceVerdict: unverified }), entry(3, { acceptanceVerdict: met })], limits).text;
    const heads = text.split("\n").filter((l) => l.startsWith("- ["));
    expect(heads).toEqual([
      `- [succeeded] Task 3 (via general-purpose; reuse this result)`,
      `- [succeeded] Task 2 (via general-purpose; ${GAP_GUIDANCE})`,
      `- [succeeded] Task 1 (via general-purpose; ${GAP_GUIDANCE})`,
    ]);
    expect(GAP_GUIDANCE).toBe(
      "execution ended but criteria are unmet or UNVERIFIED; retain the useful work, repair only the remaining gaps, verify load-bearing UNVERIFIED criteria or preserve the uncertainty in the answer, respect the remaining budget",
    );
    expect(text.startsWith(`${LEDGER_HEADING}\n`)).toBe(true);
    expect(LEDGER_HEADING).toContain("Completed means execution ended, not task acceptance");
  });
});
