import type { DelegationStatus, DelegationV1 } from "../../contracts/delegation/v1.js";
import { clipEnd, oneLine } from "./clip.js";
import { unresolvedAcceptanceLines } from "./unresolved-acceptance.js";

export const LEDGER_TITLE = "## Work already delegated";

/** The heading's second line: a status is how the execution ended, not whether the task is accepted. */
export const LEDGER_NOTE =
  "Completed means execution ended, not task acceptance: a `succeeded` entry's citations and acceptance lines say what is evidenced.";

/** The section's heading (two lines), counted in the ledger budget. */
export const LEDGER_HEADING = `${LEDGER_TITLE}\n${LEDGER_NOTE}`;

/** What the model should do about each entry, by status. */
export const GUIDANCE: Readonly<Record<DelegationStatus, string>> = {
  in_progress: "already delegated; do NOT delegate again; wait for or build on the result",
  succeeded: "reuse this result",
  partial: "may retry with a changed plan",
  failed: "may retry with a changed plan",
  cancelled: "may retry with a changed plan",
  timed_out: "may retry with a changed plan",
};

/** A `succeeded` entry whose acceptance criteria do not all hold (some unmet or UNVERIFIED). */
export const GAP_GUIDANCE =
  "execution ended but criteria are unmet or UNVERIFIED; retain the useful work, repair only the remaining gaps, verify load-bearing UNVERIFIED criteria or preserve the uncertainty in the answer, respect the remaining budget";

export const omittedLine = (n: number) => `- ${n} older delegation entries omitted`;

export interface LedgerLimits {
  ledgerChars: number;
  briefChars: number;
}

export interface RenderedDelegations {
  /** The section text; "" when there are no entries. */
  text: string;
  /** Entry ids shown, newest first. */
  shown: string[];
  omitted: number;
}

type Entry = Pick<DelegationV1, "id" | "description" | "subagentType" | "status"> & Partial<DelegationV1>;

function isEntry(value: unknown): value is Entry {
  const e = value as Partial<Entry> | null;
  return typeof e === "object" && e !== null && typeof e.id === "string" && typeof e.description === "string" && typeof e.status === "string";
}

/** The brief: the result's text, else the stop reasons (a refused or capped task has no result). */
function briefOf(entry: Entry, briefChars: number): string {
  const text = entry.resultBrief ? oneLine(entry.resultBrief) : "";
  const stopped = (entry.stopReasons ?? []).map((r) => r.reason);
  const brief = text || (stopped.length > 0 ? `stopped: ${stopped.join(", ")}` : "");
  return brief ? ` -> ${clipEnd(brief, briefChars)}` : "";
}

type Leaf = { checked?: boolean; holds?: boolean };
const leavesOf = (entry: Entry): Leaf[] => (Array.isArray(entry.acceptanceVerdict?.leaves) ? (entry.acceptanceVerdict!.leaves as Leaf[]) : []);

/** True when the entry has acceptance criteria and some do not hold (unmet or UNVERIFIED). */
function hasAcceptanceGaps(entry: Entry): boolean {
  return leavesOf(entry).some((leaf) => leaf?.holds !== true);
}

function guidanceOf(entry: Entry): string {
  if (entry.status === "succeeded" && hasAcceptanceGaps(entry)) return GAP_GUIDANCE;
  return GUIDANCE[entry.status as DelegationStatus] ?? "status unknown; check before delegating again";
}

const LIMITATION = "execution evidence only, does not validate claim correctness";

/**
 * The receipt verdict's one-line summary (as the receipts plugin words it): counts, or
 * UNVERIFIED for action claims without citations; null for a report with neither.
 */
export function citationSummary(verdict: Entry["receiptVerdict"]): string | null {
  if (!verdict) return null;
  if (verdict.noCitationClaims) return "citations: UNVERIFIED — action claims without receipt citations";
  if ((verdict.cited ?? []).length === 0) return null;
  return `citations: ${verdict.resolved.length} resolved, ${verdict.failed.length} failed, ${verdict.unknown.length} unknown — ${LIMITATION}`;
}

/** The acceptance verdict's one-line summary (as the acceptance plugin words it); null without criteria. */
export function acceptanceSummary(entry: Entry): string | null {
  const leaves = leavesOf(entry);
  if (leaves.length === 0) return null;
  const hold = leaves.filter((l) => l.checked === true && l.holds === true).length;
  const unverified = leaves.filter((l) => l.checked !== true).length;
  return `acceptance: ${hold} hold, ${leaves.length - hold - unverified} does not hold, ${unverified} UNVERIFIED`;
}

/**
 * One entry: `- [status] description (via type; guidance) -> brief`, then, whole on lines of
 * their own (never cut by the brief's limit), the citation and acceptance summaries and the
 * unresolved acceptance examples.
 */
export function delegationLines(entry: Entry, briefChars: number): string[] {
  const head = `- [${entry.status}] ${oneLine(entry.description)} (via ${entry.subagentType ?? "unknown"}; ${guidanceOf(entry)})${briefOf(entry, briefChars)}`;
  const summaries = [citationSummary(entry.receiptVerdict), acceptanceSummary(entry)].filter((line): line is string => line !== null);
  return [head, ...summaries.map((line) => `  - ${line}`), ...unresolvedAcceptanceLines(entry.acceptanceVerdict)];
}

/**
 * The delegation ledger section, newest entry first (the channel lists entries oldest
 * first), within `ledgerChars` for the whole section. Entries are taken whole while they
 * fit with room for the omission line; the first one that does not fit and every older
 * one are counted as omitted, so everything omitted is older than everything shown.
 *
 * @example
 * renderDelegationLedger(entries, { ledgerChars: 6000, briefChars: 120 }).text.split("\n")[2];
 * // "- [in_progress] Research X (via general-purpose; already delegated; do NOT delegate again; wait for or build on the result)"
 */
export function renderDelegationLedger(entries: readonly unknown[], limits: LedgerLimits): RenderedDelegations {
  const newestFirst = entries.filter(isEntry).reverse();
  if (newestFirst.length === 0) return { text: "", shown: [], omitted: 0 };
  const lines = [LEDGER_HEADING];
  let used = LEDGER_HEADING.length;
  const shown: string[] = [];
  for (const [index, entry] of newestFirst.entries()) {
    const block = delegationLines(entry, limits.briefChars).join("\n");
    const remaining = newestFirst.length - index - 1;
    const reserve = remaining > 0 ? 1 + omittedLine(remaining).length : 0;
    if (used + 1 + block.length + reserve > limits.ledgerChars) break;
    lines.push(block);
    used += 1 + block.length;
    shown.push(entry.id);
  }
  const omitted = newestFirst.length - shown.length;
  if (omitted > 0) lines.push(omittedLine(omitted));
  return { text: lines.join("\n"), shown, omitted };
}
