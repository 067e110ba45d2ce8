import type { BaseMessage } from "@langchain/core/messages";
import type { HookContext } from "../../kernel/plugin/types.js";
import {
  ACCEPTANCE_PORT,
  RECEIPTS_PORT,
  type AcceptancePort,
  type AcceptanceVerdict,
  type AgentsPort,
  type CitationVerdict,
  type ReceiptsPort,
} from "../../kernel/ports/agents.js";
import { optionalPort } from "./options.js";

/** The plugin whose composed options say whether a stack stamps receipts. */
export const RECEIPTS_PLUGIN = "receipts";

export interface ChildEvidence {
  /** In the delegation entry and the task message's metadata; never in the result text. */
  receiptVerdict?: CitationVerdict;
  acceptanceVerdict?: AcceptanceVerdict;
  /**
   * Display lines the result text ends with (after `resultSha256` is taken): the acceptance
   * checklist, and a line for a check that could not be made. The citation verdict is not one.
   */
  lines: string[];
}

export interface EvidenceInput {
  /** The child's report (its `return_result` text, or its last answer). */
  report: string;
  /** The assistant message carrying the report: the receipts it was shown are the ones it may cite. */
  reportMessage: BaseMessage | undefined;
  values: Readonly<Record<string, unknown>>;
  criteria: readonly string[];
  /** Whether the child's tool calls got receipts (`childHasReceipts`): without them no citation check runs. */
  receipts: boolean;
}

/**
 * Whether a child of `subagentType` gets receipts: the receipts plugin is in its stack and
 * its composed `enabled` option is not false (asked of the host's `agents` port). A host
 * that cannot tell falls back to this stack's receipts port and its `enabled`; no receipts
 * plugin at all means off.
 */
export function childHasReceipts(ctx: Pick<HookContext, "port">, agents: AgentsPort, subagentType: string): boolean {
  const port = optionalPort<ReceiptsPort>(ctx, RECEIPTS_PORT);
  if (agents.pluginConfig) {
    const config = agents.pluginConfig(subagentType, RECEIPTS_PLUGIN);
    return config !== undefined && config.enabled !== false;
  }
  return port !== undefined && port.enabled !== false;
}

/**
 * Citation check (receipts port, only when the child had receipts) and acceptance checks
 * (acceptance port) of a finished child. A missing port means that check is not made; a
 * check that throws is reported as not made, never as passed.
 */
export async function checkChildEvidence(input: EvidenceInput, ctx: Pick<HookContext, "port" | "threadId">): Promise<ChildEvidence> {
  const out: ChildEvidence = { lines: [] };
  const receipts = input.receipts ? optionalPort<ReceiptsPort>(ctx, RECEIPTS_PORT) : undefined;
  if (receipts) {
    try {
      out.receiptVerdict = receipts.checkCitations(input.report, receipts.shownReceipts(input.values, input.reportMessage));
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
