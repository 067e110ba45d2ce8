import type { ToolMessage } from "@langchain/core/messages";
import { keelMeta, setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { ReceiptsPort } from "../../kernel/ports/agents.js";
import { checkCitations, renderCitationSummary } from "./citations.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { HookContext, Hooks, ToolRequest } from "../../kernel/plugin/types.js";
import { DELEGATION_TOOL, hasDelegated, insertAfterLeadingSystem, ledgerMessage, renderReceiptLedger } from "./ledger.js";
import { LEDGER_CHARS, receiptsManifest } from "./manifest.js";
import { allReceipts, indexEntry, receiptTotal, runHasDelegated, runReceiptIndex, runReceipts, runStart, type IndexedReceipt, type ReceiptCounts, type ReceiptRun } from "./run-receipts.js";
import { buildReceipt, isValidReceipt, receiptId, type Receipt } from "./stamp.js";

interface ReceiptsOptions {
  enabled: boolean;
  render: "always" | "delegation_only";
  ledgerChars: number;
}

function options(ctx: HookContext): ReceiptsOptions {
  const c = ctx.config;
  return {
    enabled: c.enabled !== false,
    render: c.render === "delegation_only" ? "delegation_only" : "always",
    ledgerChars: typeof c.ledgerChars === "number" ? c.ledgerChars : LEDGER_CHARS,
  };
}

/**
 * Stamp the call's receipt through `ctx.update` (applied by the kernel in tool-call order).
 * The id is this run's receipt count at the start of the step plus the call's position in
 * the step, so parallel calls get r-ids in tool-call order whatever order they finish in.
 * Nothing here reads the tool's output as evidence beyond hashing it.
 */
function stamp(request: ToolRequest, response: ToolMessage | null, ctx: HookContext): void {
  try {
    const n = receiptTotal(request.state) - runStart(request.state) + request.index + 1;
    const receipt = buildReceipt({ id: receiptId(n), toolCall: request.toolCall, response, createdAt: ctx.now() });
    if (!isValidReceipt(receipt)) return;
    const counts: ReceiptCounts = { total: 1, [receipt.status]: 1, ...(receipt.tool === DELEGATION_TOOL ? { delegations: 1 } : {}) };
    ctx.update({ receipts: [receipt], receiptCounts: counts, receiptIndex: [indexEntry(receipt)] });
  } catch {
    // A failure to stamp never breaks the tool call; the ledger just lacks this call.
  }
}

const hooks: Hooks = {
  beforeAgent(state, ctx) {
    const counts = state.receiptCounts as Partial<ReceiptCounts> | undefined;
    const run: ReceiptRun = { runId: ctx.runId, agent: ctx.agent, start: receiptTotal(state), delegationsAtStart: counts?.delegations ?? 0 };
    // A thread written before `receiptCounts` existed: count its receipts once, so ids and run starts stay right.
    const kept = allReceipts(state);
    if (typeof counts?.total === "number" || kept.length === 0) return { receiptRun: run };
    const success = kept.filter((r) => r.status === "success").length;
    const delegations = kept.filter((r) => r.tool === DELEGATION_TOOL).length;
    return { receiptRun: { ...run, delegationsAtStart: delegations }, receiptCounts: { total: kept.length, success, error: kept.length - success, delegations } };
  },

  async wrapToolCall(request, next, ctx) {
    if (!options(ctx).enabled) return next(request);
    let response: ToolMessage;
    try {
      response = await next(request);
    } catch (error) {
      stamp(request, null, ctx);
      throw error;
    }
    stamp(request, response, ctx);
    return response;
  },

  async wrapModelCall(request, next, ctx) {
    const opts = options(ctx);
    if (!opts.enabled) return next(request);
    const receipts = runReceipts(request.state);
    const show = opts.render === "always" || runHasDelegated(request.state, DELEGATION_TOOL) || hasDelegated(request.messages, []);
    const ledger = show ? renderReceiptLedger(receipts, opts.ledgerChars) : { text: "", shown: [] };
    const messages = ledger.text === "" ? request.messages : insertAfterLeadingSystem(request.messages, ledgerMessage(ledger.text));
    const response = await next({ ...request, messages });
    setKeelMeta(response, { receiptIds: ledger.shown });
    return response;
  },
};

/**
 * Runtime-owned execution evidence: a receipt@1 per tool call in `receipts` (ids r1, r2, …
 * per agent run), the run's receipts shown to the model as a hidden ledger, and the ids
 * shown stamped on each AI message as `keel.receiptIds`.
 *
 * @example
 * { "plugins": ["workspace", { "name": "receipts", "config": { "render": "delegation_only" } }] }
 */
export const receiptsPlugin = definePlugin({
  manifest: receiptsManifest,
  hooks,
  services: {
    /** The `receipts` port (ReceiptsPort): whether this stack stamps receipts, and a finished run's report checked against the receipts it was shown. */
    receipts: (config): ReceiptsPort => ({
      enabled: config.enabled !== false,
      shownReceipts(values, message) {
        // Every receipt of the run, kept ones whole and older ones from the index: a citation of a receipt that fell out of state still resolves.
        const receipts: IndexedReceipt[] = runReceiptIndex(values);
        const ids = message ? keelMeta(message).receiptIds : undefined;
        if (!Array.isArray(ids)) return receipts;
        const shown = new Set(ids);
        return receipts.filter((r) => shown.has(r.id));
      },
      checkCitations: (text, ledger) => checkCitations(text, ledger as IndexedReceipt[]),
      renderCitationSummary: (verdict) => renderCitationSummary(verdict),
    }),
  },
  /** The report's `receipts[agent]`: the receipts the agent's `receipts` channel keeps (the newest `keepInState` of the thread), oldest first. */
  report: ({ values }) => ({ receipts: (values.receipts as Record<string, unknown>[] | undefined) ?? [] }),
});

export default receiptsPlugin;

export { ACTION_VERBS, CITATION_PATTERN, checkCitations, hasActionClaim, parseCitations, renderCitationSummary, type ReceiptVerdict } from "./citations.js";
export { DELEGATION_TOOL, LEDGER_HEADER, LEDGER_OMITTED, hasDelegated, insertAfterLeadingSystem, receiptLine, renderReceiptLedger, type RenderedLedger } from "./ledger.js";
export { KEEP_IN_STATE, LEDGER_CHARS, receiptsConfigSchema, receiptsManifest } from "./manifest.js";
export { allReceipts, indexEntry, receiptTotal, runHasDelegated, runReceiptIndex, runReceipts, runStart, type IndexedReceipt, type ReceiptCounts, type ReceiptRun } from "./run-receipts.js";
export { argsText, buildReceipt, outputText, receiptId, shortSha256, type Receipt } from "./stamp.js";
