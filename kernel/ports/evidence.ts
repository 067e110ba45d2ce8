import type { BaseMessage } from "@langchain/core/messages";
import type { AcceptanceVerdictV1 } from "../../contracts/acceptance-verdict/v1.js";
import type { ReceiptVerdictV1 } from "../../contracts/receipt-verdict/v1.js";

/**
 * Evidence ports, provided by the `receipts` and `acceptance` plugins: the delegation plugin
 * checks a finished child's report and criteria through them, without importing either plugin.
 */
export const RECEIPTS_PORT = "receipts";
export const ACCEPTANCE_PORT = "acceptance";

/** receipt-verdict@1, the type derived from its contract. */
export type CitationVerdict = ReceiptVerdictV1;

/** Citation checks of a finished agent's report, provided by the receipts plugin. */
export interface ReceiptsPort {
  /** The providing plugin's composed `enabled` option: false means no receipts are stamped, so none can be cited. */
  readonly enabled?: boolean;
  /** The receipts `message` was shown (its `keel.receiptIds`; the whole run's when unstamped), from a run's final values. */
  shownReceipts(values: Readonly<Record<string, unknown>>, message: BaseMessage | undefined): unknown[];
  checkCitations(reportText: string, ledger: readonly unknown[]): CitationVerdict;
  renderCitationSummary(verdict: CitationVerdict): string;
}

/** acceptance-verdict@1, the type derived from its contract. */
export type AcceptanceVerdict = AcceptanceVerdictV1;

/** Deterministic acceptance checks, provided by the acceptance plugin (with its options). */
export interface AcceptancePort {
  /** Trimmed, tag-neutralized, bounded criteria, and a line per dropped or changed one. */
  normalize(raw: unknown): { criteria: string[]; problems: string[] };
  /** Check criteria against a finished run's values (`bashRuns`, `messages`) in the thread's workspace. */
  evaluate(
    criteria: readonly string[],
    values: Readonly<Record<string, unknown>>,
    ctx: { threadId: string; port<T>(name: string): T },
  ): Promise<AcceptanceVerdict>;
  renderChecklist(verdict: AcceptanceVerdict): string;
  renderLedgerSummary(verdict: AcceptanceVerdict): string;
}
