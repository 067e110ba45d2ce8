import { describe, expect, it } from "vitest";
import type { DelegationV1 } from "../../../contracts/delegation/v1.js";
import { GUIDANCE, LEDGER_TITLE, renderDelegationLedger, unresolvedAcceptanceLines } from "../../../plugins/durable-context/index.js";

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
    expect(text.split("\n").slice(1)).toEqual([
      `- [partial] Task 1 (via general-purpose; ${GUIDANCE.partial})`,
      "  - unresolved acceptance (file): file:a.md exists — file does not exist",
    ]);
  });
});
