import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import type { WorkspacePort } from "../../../kernel/ports/workspace.js";
import {
  ACCEPTANCE_CHECKLIST_HEADER,
  evaluateAcceptance,
  renderChecklist,
  renderLedgerSummary,
  type AcceptanceVerdictV1,
  type BashRunEvidence,
} from "../../../plugins/acceptance/index.js";
import { workspaceDir, workspacePlugin } from "../../../plugins/workspace/index.js";

const threadId = "t-verdict";
let root: string;
let workspace: WorkspacePort;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-verdict-"));
  workspace = workspacePlugin.services!.workspace!({ root }) as WorkspacePort;
  const dir = workspaceDir({ root }, threadId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "out.md"), "hello");
  writeFileSync(path.join(dir, "empty.md"), "");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const passing: BashRunEvidence = { command: "npm test", commandTruncated: false, exitCode: 0, outputTail: "Tests  4 passed (4)\n", persistentShell: false };

describe("acceptance-verdict@1", () => {
  it("builds a valid verdict, renders the checklist and the ledger line", async () => {
    const criteria = ["file:out.md exists", "tests_passed:npm test", "file:empty.md non-empty", "the code is elegant"];
    const verdict = await evaluateAcceptance(criteria, { workspace, threadId, bashRuns: [passing] });
    expect(validate("acceptance-verdict@1", verdict)).toEqual({ valid: true, errors: [] });
    expect(verdict.allHold).toBe(false);
    expect(verdict.unchecked).toEqual(["the code is elegant"]);
    expect(renderChecklist(verdict)).toBe(
      [
        "Acceptance checklist (deterministic checks; execution evidence only, does not validate claim correctness):",
        "- [holds] file:out.md exists — exists, 5 bytes",
        "- [holds] tests_passed:npm test — exit 0; output shows `4 passed`",
        "- [does not hold] file:empty.md non-empty — file is empty",
        "- [UNVERIFIED] the code is elegant — not deterministically checkable",
      ].join("\n"),
    );
    expect(renderLedgerSummary(verdict)).toBe("acceptance: 2 hold, 1 does not hold, 1 UNVERIFIED");
  });

  it("allHold only when every leaf is checked and holds; an empty checklist proves nothing", async () => {
    const all = await evaluateAcceptance(["file:out.md exists", "tests_passed:npm test"], { workspace, threadId, bashRuns: [passing] });
    expect(all.allHold).toBe(true);
    expect(all.unchecked).toEqual([]);
    const none = await evaluateAcceptance([], { workspace, threadId, bashRuns: [] });
    expect(none).toEqual({ source: "acceptance_checklist", leaves: [], unchecked: [], allHold: false });
    expect(renderChecklist(none)).toBe(ACCEPTANCE_CHECKLIST_HEADER);
  });

  it("keeps each checklist entry on one line", () => {
    const verdict: AcceptanceVerdictV1 = {
      source: "acceptance_checklist",
      leaves: [{ criterion: "a\nb", family: "undecidable", checked: false, holds: false, detail: "x\r\ny" }],
      unchecked: ["a\nb"],
      allHold: false,
    };
    expect(renderChecklist(verdict).split("\n")).toEqual([ACCEPTANCE_CHECKLIST_HEADER, "- [UNVERIFIED] a b — x y"]);
  });

  it("property: holds implies checked, unchecked lists the unchecked leaves, allHold matches, always valid", async () => {
    const criterion = fc.oneof(
      fc.constantFrom("file:out.md exists", "file:empty.md non-empty", "file:nope.md exists", "file:../x exists", "tests_passed:npm test", "tests_passed:make check", "json_valid:out.md receipt@1"),
      fc.string({ maxLength: 40 }),
    );
    const run = fc.record({
      command: fc.constantFrom("npm test", "make check", "cd a && npm test", "npm test || true", "echo npm test"),
      commandTruncated: fc.boolean(),
      exitCode: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      outputTail: fc.constantFrom("", "3 passed", "0 passed", "1 failed", "OK"),
      persistentShell: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(criterion, { maxLength: 6 }), fc.array(run, { maxLength: 5 }), async (criteria, bashRuns) => {
        const verdict = await evaluateAcceptance(criteria, { workspace, threadId, bashRuns });
        expect(validate("acceptance-verdict@1", verdict).valid).toBe(true);
        expect(verdict.leaves.map((l) => l.criterion)).toEqual(criteria);
        for (const leaf of verdict.leaves) if (leaf.holds) expect(leaf.checked).toBe(true);
        expect(verdict.unchecked).toEqual(verdict.leaves.filter((l) => !l.checked).map((l) => l.criterion));
        expect(verdict.allHold).toBe(verdict.leaves.length > 0 && verdict.leaves.every((l) => l.checked && l.holds));
      }),
      { numRuns: 60 },
    );
  });
});
