import type { AcceptanceLeaf, AcceptanceVerdictV1 } from "../../contracts/acceptance-verdict/v1.js";

export const ACCEPTANCE_CHECKLIST_HEADER =
  "Acceptance checklist (deterministic checks; execution evidence only, does not validate claim correctness):";

export type LeafLabel = "holds" | "does not hold" | "UNVERIFIED";

export function leafLabel(leaf: Pick<AcceptanceLeaf, "checked" | "holds">): LeafLabel {
  if (!leaf.checked) return "UNVERIFIED";
  return leaf.holds ? "holds" : "does not hold";
}

/** One line of text: a criterion or detail with line breaks would break the list. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}

/**
 * The checklist a child's result text ends with.
 *
 * @example
 * renderChecklist(verdict)
 * // "Acceptance checklist (deterministic checks; …):\n- [holds] file:out.md exists — exists, 5 bytes"
 */
export function renderChecklist(verdict: AcceptanceVerdictV1): string {
  const lines = verdict.leaves.map((leaf) => `- [${leafLabel(leaf)}] ${oneLine(leaf.criterion)} — ${oneLine(leaf.detail)}`);
  return [ACCEPTANCE_CHECKLIST_HEADER, ...lines].join("\n");
}

/**
 * The delegation ledger's one-line summary.
 *
 * @example
 * renderLedgerSummary(verdict) // "acceptance: 2 hold, 1 does not hold, 1 UNVERIFIED"
 */
export function renderLedgerSummary(verdict: AcceptanceVerdictV1): string {
  const count = (label: LeafLabel) => verdict.leaves.filter((l) => leafLabel(l) === label).length;
  return `acceptance: ${count("holds")} hold, ${count("does not hold")} does not hold, ${count("UNVERIFIED")} UNVERIFIED`;
}
