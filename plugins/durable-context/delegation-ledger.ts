import type { DelegationStatus, DelegationV1 } from "../../contracts/delegation/v1.js";
import { clipEnd, oneLine } from "./clip.js";
import { unresolvedAcceptanceLines } from "./unresolved-acceptance.js";

export const LEDGER_TITLE = "## Work already delegated";

/** What the model should do about each entry, by status. */
export const GUIDANCE: Readonly<Record<DelegationStatus, string>> = {
  in_progress: "already delegated; do NOT delegate again; wait for or build on the result",
  succeeded: "reuse this result",
  partial: "may retry with a changed plan",
  failed: "may retry with a changed plan",
  cancelled: "may retry with a changed plan",
  timed_out: "may retry with a changed plan",
};

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

/** One entry: `- [status] description (via type; guidance) -> brief`, then its unresolved acceptance. */
export function delegationLines(entry: Entry, briefChars: number): string[] {
  const guidance = GUIDANCE[entry.status as DelegationStatus] ?? "status unknown; check before delegating again";
  const head = `- [${entry.status}] ${oneLine(entry.description)} (via ${entry.subagentType ?? "unknown"}; ${guidance})${briefOf(entry, briefChars)}`;
  return [head, ...unresolvedAcceptanceLines(entry.acceptanceVerdict)];
}

/**
 * The delegation ledger section, newest entry first (the channel lists entries oldest
 * first), within `ledgerChars` for the whole section. Entries are taken whole while they
 * fit with room for the omission line; the first one that does not fit and every older
 * one are counted as omitted, so everything omitted is older than everything shown.
 *
 * @example
 * renderDelegationLedger(entries, { ledgerChars: 6000, briefChars: 120 }).text.split("\n")[1];
 * // "- [in_progress] Research X (via general-purpose; already delegated; do NOT delegate again; wait for or build on the result)"
 */
export function renderDelegationLedger(entries: readonly unknown[], limits: LedgerLimits): RenderedDelegations {
  const newestFirst = entries.filter(isEntry).reverse();
  if (newestFirst.length === 0) return { text: "", shown: [], omitted: 0 };
  const lines = [LEDGER_TITLE];
  let used = LEDGER_TITLE.length;
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
