import type { AcceptanceLeaf } from "../../contracts/acceptance-verdict/v1.js";
import { clipEnd, oneLine } from "./clip.js";

export const CRITERION_CHARS = 160;
export const DETAIL_CHARS = 120;

/**
 * Lines (indented under a ledger entry) for the acceptance criteria that do not hold:
 * one example per family (`file`, `tests_passed`, `undecidable`, …), in verdict order,
 * criterion ≤160 and detail ≤120 characters; the other unresolved leaves are counted.
 * A verdict with every leaf holding gives no lines.
 *
 * @example
 * unresolvedAcceptanceLines({ leaves: [{ criterion: "file:a.md exists", family: "file", checked: true, holds: false, detail: "file does not exist" }] });
 * // ['  - unresolved acceptance (file): file:a.md exists — file does not exist']
 */
export function unresolvedAcceptanceLines(verdict: { leaves?: readonly AcceptanceLeaf[] } | undefined): string[] {
  const unresolved = (verdict?.leaves ?? []).filter((leaf) => leaf && leaf.holds !== true);
  if (unresolved.length === 0) return [];
  const examples = new Map<string, AcceptanceLeaf>();
  for (const leaf of unresolved) if (!examples.has(leaf.family)) examples.set(leaf.family, leaf);
  const lines = [...examples.values()].map(
    (leaf) => `  - unresolved acceptance (${leaf.family}): ${clipEnd(oneLine(leaf.criterion), CRITERION_CHARS)} — ${clipEnd(oneLine(leaf.detail), DETAIL_CHARS)}`,
  );
  const rest = unresolved.length - examples.size;
  if (rest > 0) lines.push(`  - ${rest} more unresolved acceptance ${rest === 1 ? "criterion" : "criteria"}`);
  return lines;
}
