import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { HookContext, Hooks } from "../../kernel/plugin/types.js";
import { clipMiddle } from "./clip.js";
import { renderDelegationLedger } from "./delegation-ledger.js";
import { durableContextManifest } from "./manifest.js";
import { durableDataText, projectDurableContext } from "./projection.js";

export interface DurableContextOptions {
  summaryChars: number;
  ledgerChars: number;
  briefChars: number;
}

const optionsOf = (ctx: HookContext) => ctx.config as unknown as DurableContextOptions;

/** The summary text from the `summary` channel (summarization writes `{ text, … }`; a plain string is accepted too). */
export function summaryText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  const text = (value as { text?: unknown } | null | undefined)?.text;
  return typeof text === "string" ? text.trim() : "";
}

const hooks: Hooks = {
  /** Project the summary and the delegation ledger into this request only. */
  async wrapModelCall(request, next, ctx) {
    const options = optionsOf(ctx);
    const summary = clipMiddle(summaryText(request.state.summary), options.summaryChars);
    const entries = Array.isArray(request.state.delegations) ? (request.state.delegations as unknown[]) : [];
    const ledger = renderDelegationLedger(entries, options);
    const data = durableDataText(summary, ledger.text);
    if (data === null) return next(request);
    return next({ ...request, messages: projectDurableContext(request.messages, data, summary.length > 0) });
  },
};

/**
 * The durable-context plugin (plugins/durable-context/README.md).
 *
 * @example
 * { "plugins": ["workspace", "subagents", "durable-context", "summarization"], "config": { "durable-context": { "ledgerChars": 4000 } } }
 */
export const durableContextPlugin = definePlugin({ manifest: durableContextManifest, hooks });

export default durableContextPlugin;

export { clipEnd, clipMiddle, oneLine } from "./clip.js";
export {
  acceptanceSummary,
  citationSummary,
  delegationLines,
  GAP_GUIDANCE,
  GUIDANCE,
  LEDGER_HEADING,
  LEDGER_NOTE,
  LEDGER_TITLE,
  omittedLine,
  renderDelegationLedger,
  type LedgerLimits,
  type RenderedDelegations,
} from "./delegation-ledger.js";
export { durableContextConfigSchema, durableContextManifest } from "./manifest.js";
export {
  AUTHORITY_CONTRACT,
  DATA_CLOSE,
  DATA_OPEN,
  durableDataText,
  projectDurableContext,
  SUMMARY_MARKER_META,
  SUMMARY_POINTER,
  SUMMARY_TITLE,
} from "./projection.js";
export { CRITERION_CHARS, DETAIL_CHARS, unresolvedAcceptanceLines } from "./unresolved-acceptance.js";
