import type { FailedCitation, ReceiptVerdictV1 } from "../../contracts/receipt-verdict/v1.js";
import type { Receipt } from "./stamp.js";

export type ReceiptVerdict = ReceiptVerdictV1;

/** `[r3]` or `[r3 write_file]`: group 1 the number, group 2 the optional anchor (a tool name). */
export const CITATION_PATTERN = /\[r(\d+)(?:\s+([A-Za-z_][\w.-]*))?\]/g;

/** Verbs that claim an action was taken (word boundaries, any case). */
export const ACTION_VERBS = ["wrote", "created", "ran", "executed", "updated", "deleted", "fetched", "sent", "installed"] as const;
const ACTION_VERB = new RegExp(`\\b(?:${ACTION_VERBS.join("|")})\\b`, "i");

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
/**
 * A file path: a name with an extension (`notes.md`, `src/a.ts`; without a directory the
 * stem needs two characters, so `e.g.` and `U.S.` are not paths), a path anchored at `/`,
 * `./`, `../` or `~/` (`/tmp/out`), or a relative path of three or more segments with a
 * letter in the first (`src/lib/util`, not `01/02/2026`). URLs are removed first.
 */
const FILE_PATHS = [
  /(?<![\w.\/-])[\w-]{2,}\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w\/-])/,
  /(?<![\w.\/-])(?:[\w.-]+\/)+[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w\/-])/,
  /(?<![\w.:\/-])(?:~|\.{1,2})?\/[\w.-]*[\w-]/,
  /(?<![\w.\/-])[\w.-]*[A-Za-z_][\w.-]*\/[\w.-]+\/[\w.-]*\w/,
];

/** True when the text claims an action: an action verb, or a file path. */
export function hasActionClaim(text: string): boolean {
  if (ACTION_VERB.test(text)) return true;
  const withoutUrls = text.replace(URL, " ");
  return FILE_PATHS.some((pattern) => pattern.test(withoutUrls));
}

interface Citation {
  id: string;
  anchor: string | null;
}

/** Citations in order of first appearance, exact (id, anchor) pairs deduplicated. */
export function parseCitations(text: string): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const match of text.matchAll(CITATION_PATTERN)) {
    const citation = { id: `r${match[1]}`, anchor: match[2] ?? null };
    const key = `${citation.id}\u0000${citation.anchor ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(citation);
  }
  return out;
}

function pushOnce(list: string[], id: string): void {
  if (!list.includes(id)) list.push(id);
}

/**
 * Check a report's receipt citations against the ledger the agent was shown. Each
 * distinct (id, anchor) pair: id not in the ledger → unknown; receipt status not success
 * → failed `receipt status=<s>`; anchor other than the receipt's tool → failed
 * `anchor mismatch: cited as X, receipt rN is Y`; else resolved. No citations but an
 * action claim → `noCitationClaims`. Execution evidence only: a resolved citation says a
 * call happened, not that the claim is correct.
 *
 * @example
 * checkCitations("Wrote notes.md [r1 write_file].", ledger).resolved; // ["r1"]
 */
export function checkCitations(reportText: string, ledger: readonly Pick<Receipt, "id" | "tool" | "status">[]): ReceiptVerdict {
  const byId = new Map(ledger.map((r) => [r.id, r]));
  const cited: string[] = [];
  const resolved: string[] = [];
  const unknown: string[] = [];
  const failed: FailedCitation[] = [];
  const citations = parseCitations(reportText);
  for (const { id, anchor } of citations) {
    pushOnce(cited, id);
    const receipt = byId.get(id);
    let reason: string | null = null;
    if (receipt === undefined) {
      pushOnce(unknown, id);
      continue;
    }
    if (receipt.status !== "success") reason = `receipt status=${receipt.status}`;
    else if (anchor !== null && anchor !== receipt.tool) reason = `anchor mismatch: cited as ${anchor}, receipt ${id} is ${receipt.tool}`;
    if (reason === null) pushOnce(resolved, id);
    else if (!failed.some((f) => f.id === id && f.reason === reason)) failed.push({ id, reason });
  }
  const noCitationClaims = citations.length === 0 && hasActionClaim(reportText);
  const citationResolved = citations.length > 0 ? failed.length === 0 && unknown.length === 0 : !noCitationClaims;
  return { source: "receipt_citations", citationResolved, cited, resolved, failed, unknown, noCitationClaims };
}

const LIMITATION = "execution evidence only, does not validate claim correctness";

/**
 * One line for a delegation ledger: counts, or UNVERIFIED for action claims without
 * citations, or "" for a report with no citations and no claims.
 */
export function renderCitationSummary(verdict: ReceiptVerdict): string {
  if (verdict.noCitationClaims) return "citations: UNVERIFIED — action claims without receipt citations";
  if (verdict.cited.length === 0) return "";
  return `citations: ${verdict.resolved.length} resolved, ${verdict.failed.length} failed, ${verdict.unknown.length} unknown — ${LIMITATION}`;
}
