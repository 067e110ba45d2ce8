import type { BaseMessage } from "@langchain/core/messages";
import type { HookContext } from "../../kernel/plugin/types.js";
import { ACCEPTANCE_PORT, RECEIPTS_PORT, type AcceptancePort, type AcceptanceVerdict, type CitationVerdict, type ReceiptsPort } from "../../kernel/ports/agents.js";
import { optionalPort } from "./options.js";

export interface ChildEvidence {
  receiptVerdict?: CitationVerdict;
  acceptanceVerdict?: AcceptanceVerdict;
  /** Lines the result text ends with: the citation summary, then the acceptance checklist. */
  lines: string[];
}

export interface EvidenceInput {
  /** The child's report (its `return_result` text, or its last answer). */
  report: string;
  /** The assistant message carrying the report: the receipts it was shown are the ones it may cite. */
  reportMessage: BaseMessage | undefined;
  values: Readonly<Record<string, unknown>>;
  criteria: readonly string[];
}

/**
 * Citation check (receipts port) and acceptance checks (acceptance port) of a finished
 * child. A missing port means that check is not made; a check that throws is reported as
 * not made, never as passed.
 */
export async function checkChildEvidence(input: EvidenceInput, ctx: Pick<HookContext, "port" | "threadId">): Promise<ChildEvidence> {
  const out: ChildEvidence = { lines: [] };
  const receipts = optionalPort<ReceiptsPort>(ctx, RECEIPTS_PORT);
  if (receipts) {
    try {
      const verdict = receipts.checkCitations(input.report, receipts.shownReceipts(input.values, input.reportMessage));
      out.receiptVerdict = verdict;
      out.lines.push(receipts.renderCitationSummary(verdict));
    } catch (error) {
      out.lines.push(`citations: not checked (${(error as Error).message})`);
    }
  }
  if (input.criteria.length > 0) {
    const acceptance = optionalPort<AcceptancePort>(ctx, ACCEPTANCE_PORT);
    if (!acceptance) {
      out.lines.push("acceptance: not checked (no acceptance plugin in the stack)");
    } else {
      try {
        const verdict = await acceptance.evaluate(input.criteria, input.values, { threadId: ctx.threadId, port: <T>(name: string) => ctx.port<T>(name) });
        out.acceptanceVerdict = verdict;
        out.lines.push(acceptance.renderChecklist(verdict));
      } catch (error) {
        out.lines.push(`acceptance: not checked (${(error as Error).message})`);
      }
    }
  }
  return out;
}
