import { describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import { checkCitations, hasActionClaim, parseCitations, renderCitationSummary, type Receipt } from "../../../plugins/receipts/index.js";

function receipt(id: string, tool: string, status: "success" | "error" = "success"): Receipt {
  return { id, toolCallId: `call-${id}`, tool, status, argsSha256: "0123456789abcdef", outputSha256: "fedcba9876543210", bytes: 3, createdAt: "2026-01-01T00:00:00.000Z" };
}

const ledger = [receipt("r1", "write_file"), receipt("r2", "bash", "error"), receipt("r3", "read_file"), receipt("r4", "bash")];

describe("checkCitations", () => {
  it("resolves a cited receipt whose status is success, with or without a matching anchor", () => {
    const verdict = checkCitations("Wrote notes.md [r1 write_file] and read it back [r3].", ledger);
    expect(verdict).toEqual({
      source: "receipt_citations",
      citationResolved: true,
      cited: ["r1", "r3"],
      resolved: ["r1", "r3"],
      failed: [],
      unknown: [],
      noCitationClaims: false,
    });
    expect(validate("receipt-verdict@1", verdict).valid).toBe(true);
  });

  it("marks an id that is not in the ledger shown as unknown", () => {
    const verdict = checkCitations("Ran the tests [r9 bash].", ledger);
    expect(verdict.unknown).toEqual(["r9"]);
    expect(verdict.resolved).toEqual([]);
    expect(verdict.citationResolved).toBe(false);
  });

  it("fails a citation of a receipt whose status is not success, naming the status", () => {
    const verdict = checkCitations("Ran the tests [r2].", ledger);
    expect(verdict.failed).toEqual([{ id: "r2", reason: "receipt status=error" }]);
    expect(verdict.citationResolved).toBe(false);
  });

  it("checks the status before the anchor", () => {
    expect(checkCitations("[r2 write_file]", ledger).failed).toEqual([{ id: "r2", reason: "receipt status=error" }]);
  });

  it("fails an anchor that is not the receipt's tool, with the mismatch text", () => {
    const verdict = checkCitations("Ran the build [r1 bash].", ledger);
    expect(verdict.failed).toEqual([{ id: "r1", reason: "anchor mismatch: cited as bash, receipt r1 is write_file" }]);
    expect(verdict.resolved).toEqual([]);
  });

  it("checks each distinct (id, anchor) pair; repeated pairs count once, first seen wins", () => {
    const verdict = checkCitations("[r4] [r4 bash] [r4] [r4 read_file] [r4 bash] [r9] [r9 bash]", ledger);
    expect(parseCitations("[r4] [r4 bash] [r4] [r4 read_file] [r4 bash]")).toEqual([
      { id: "r4", anchor: null },
      { id: "r4", anchor: "bash" },
      { id: "r4", anchor: "read_file" },
    ]);
    expect(verdict.cited).toEqual(["r4", "r9"]);
    expect(verdict.resolved).toEqual(["r4"]);
    expect(verdict.failed).toEqual([{ id: "r4", reason: "anchor mismatch: cited as read_file, receipt r4 is bash" }]);
    expect(verdict.unknown).toEqual(["r9"]);
  });

  it("accepts anchors with dots and dashes and ignores brackets that are not citations", () => {
    const tools = [receipt("r1", "mcp.search-web")];
    expect(checkCitations("[r1 mcp.search-web] [r] [rx] [r1 9bad] [ r1 ]", tools)).toMatchObject({ cited: ["r1"], resolved: ["r1"], failed: [] });
  });

  it("keeps the digits as written: [r01] is not r1", () => {
    expect(checkCitations("[r01]", ledger).unknown).toEqual(["r01"]);
  });

  it("gives the counts of the PLUGINS.md example: 2 resolved, 1 failed, 1 unknown", () => {
    const verdict = checkCitations("Wrote [r1 write_file], read [r3 read_file], tested [r2 bash], deployed [r7].", ledger);
    expect(renderCitationSummary(verdict)).toBe("citations: 2 resolved, 1 failed, 1 unknown — execution evidence only, does not validate claim correctness");
  });

  it("flags action claims without any citation (UNVERIFIED), whatever the ledger holds", () => {
    for (const text of ["I wrote the summary.", "Created the release branch", "RAN the migration", "The config lives in src/config.ts now."]) {
      const verdict = checkCitations(text, ledger);
      expect(verdict, text).toMatchObject({ cited: [], noCitationClaims: true, citationResolved: false });
      expect(renderCitationSummary(verdict)).toBe("citations: UNVERIFIED — action claims without receipt citations");
    }
  });

  it("renders nothing for a report with no citations and no claims", () => {
    const verdict = checkCitations("The capital of France is Paris, e.g. per the atlas.", ledger);
    expect(verdict).toMatchObject({ cited: [], noCitationClaims: false, citationResolved: true });
    expect(renderCitationSummary(verdict)).toBe("");
  });

  it("does not flag claims when the report cites receipts (the citations are judged instead)", () => {
    const verdict = checkCitations("Wrote notes.md [r9].", ledger);
    expect(verdict.noCitationClaims).toBe(false);
    expect(renderCitationSummary(verdict)).toBe("citations: 0 resolved, 0 failed, 1 unknown — execution evidence only, does not validate claim correctness");
  });
});

describe("hasActionClaim", () => {
  it.each([
    ["each action verb at a word boundary", "We executed it. We updated it. We deleted it. We fetched it. We sent it. We installed it."],
    ["a file name with an extension", "See report.json for details"],
    ["a relative path with an extension", "changes in src/a.ts"],
    ["an absolute path", "output is under /tmp/out"],
    ["a dot-relative path", "look in ./build"],
    ["a home path", "in ~/projects"],
    ["a three-segment relative path", "the code in src/lib/util"],
  ])("finds %s", (_label, text) => {
    expect(hasActionClaim(text)).toBe(true);
  });

  it.each([
    ["verbs inside other words", "The transcript is overran by rant, wroteness and sentence."],
    ["abbreviations", "Prefer tides, e.g. spring tides, i.e. the big ones, in the U.S."],
    ["numbers and dates", "Version 1.2 on 01/02/2026, 24/7, and/or km/h"],
    ["URLs", "Documented at https://example.com/docs/tides/index"],
    ["plain prose", "Tides are caused by the moon."],
  ])("ignores %s", (_label, text) => {
    expect(hasActionClaim(text)).toBe(false);
  });
});
