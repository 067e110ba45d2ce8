import type { AcceptanceLeaf, AcceptanceVerdictV1 } from "../../contracts/acceptance-verdict/v1.js";
import { classifyCriterion } from "./criteria.js";
import { unverified, type AcceptanceEvidence, type LeafOutcome } from "./evidence.js";
import { checkFile, checkFileWritten, checkJsonValid } from "./file-checks.js";
import { readAcceptanceOptions, type AcceptanceOptions } from "./options.js";
import { checkTestsPassed } from "./tests-passed.js";

export type { AcceptanceLeaf, AcceptanceVerdictV1 };

async function checkCriterion(criterion: string, evidence: AcceptanceEvidence, options: AcceptanceOptions): Promise<{ family: string; outcome: LeafOutcome }> {
  const c = classifyCriterion(criterion);
  switch (c.family) {
    case "file":
      return { family: c.family, outcome: await checkFile(c.path, c.check, evidence, options) };
    case "file_written":
      return { family: c.family, outcome: await checkFileWritten(c.path, evidence, options) };
    case "json_valid":
      return { family: c.family, outcome: await checkJsonValid(c.path, c.contract, evidence) };
    case "tests_passed":
      return { family: c.family, outcome: checkTestsPassed(c.command, evidence.bashRuns, options) };
    case "undecidable":
      return { family: c.family, outcome: unverified("not deterministically checkable") };
  }
}

/**
 * Check criteria (already normalized, see `normalizeCriteria`) against a run's evidence
 * and return an acceptance-verdict@1. Leaves keep the criteria's order; `holds` is false
 * whenever `checked` is false; `allHold` is true only when there is at least one leaf and
 * every leaf was checked and holds (an empty checklist proves nothing).
 *
 * @example
 * await evaluateAcceptance(["file:out.md exists", "tests_passed:npm test"], { workspace, threadId, bashRuns })
 * // { source: "acceptance_checklist", leaves: [...], unchecked: [...], allHold: false }
 */
export async function evaluateAcceptance(
  criteria: readonly string[],
  evidence: AcceptanceEvidence,
  options: Partial<AcceptanceOptions> = {},
): Promise<AcceptanceVerdictV1> {
  const resolved = readAcceptanceOptions(options);
  const leaves: AcceptanceLeaf[] = [];
  for (const criterion of criteria) {
    const { family, outcome } = await checkCriterion(criterion, evidence, resolved);
    leaves.push({ criterion, family, checked: outcome.checked, holds: outcome.checked && outcome.holds, detail: outcome.detail });
  }
  return {
    source: "acceptance_checklist",
    leaves,
    unchecked: leaves.filter((l) => !l.checked).map((l) => l.criterion),
    allHold: leaves.length > 0 && leaves.every((l) => l.checked && l.holds),
  };
}
