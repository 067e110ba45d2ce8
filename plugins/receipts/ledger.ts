import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { Receipt } from "./stamp.js";

export const LEDGER_HEADER = [
  "## Tool receipts (execution record)",
  "Cite receipt ids (e.g. [r1 write_file]) in your final report for every claim about an action you took.",
  "Execution evidence only — receipts record that a call happened and its status; they do not validate claim correctness or task acceptance.",
].join("\n");

export const LEDGER_OMITTED = "- ... older receipts omitted (context budget)";

/** The tool that delegates to a subagent (plugin `subagents`). */
export const DELEGATION_TOOL = "task";

export function receiptLine(r: Receipt): string {
  return `- [${r.id}] ${r.tool} status=${r.status} args_sha256=${r.argsSha256} output_sha256=${r.outputSha256} bytes=${r.bytes}`;
}

export interface RenderedLedger {
  /** The ledger message text; "" when there is nothing to show. */
  text: string;
  /** Ids of the receipts whose lines are in `text`, oldest first. */
  shown: string[];
}

/**
 * Render the ledger within `maxChars` (the whole text, header included). When every line
 * does not fit, the newest lines that fit are kept, after an omission marker, with their
 * original ids.
 *
 * @example
 * renderReceiptLedger(receipts, 2000).text.split("\n")[3]; // "- [r1] write_file status=success args_sha256=… bytes=12"
 */
export function renderReceiptLedger(receipts: readonly Receipt[], maxChars: number): RenderedLedger {
  if (receipts.length === 0) return { text: "", shown: [] };
  const lines = receipts.map(receiptLine);
  const full = [LEDGER_HEADER, ...lines].join("\n");
  if (full.length <= maxChars) return { text: full, shown: receipts.map((r) => r.id) };

  let used = LEDGER_HEADER.length + 1 + LEDGER_OMITTED.length;
  let first = receipts.length;
  while (first > 0 && used + 1 + lines[first - 1]!.length <= maxChars) {
    first -= 1;
    used += 1 + lines[first]!.length;
  }
  return {
    text: [LEDGER_HEADER, LEDGER_OMITTED, ...lines.slice(first)].join("\n"),
    shown: receipts.slice(first).map((r) => r.id),
  };
}

/** The hidden data message that carries the ledger (never persisted). */
export function ledgerMessage(text: string): HumanMessage {
  return setKeelMeta(new HumanMessage({ content: text, id: "keel:receipts:ledger" }), { hidden: true }) as HumanMessage;
}

/** Insert `message` right after the leading system message(s), or first when there is none. */
export function insertAfterLeadingSystem(messages: readonly BaseMessage[], message: BaseMessage): BaseMessage[] {
  let at = 0;
  while (at < messages.length && SystemMessage.isInstance(messages[at])) at += 1;
  return [...messages.slice(0, at), message, ...messages.slice(at)];
}

/**
 * `delegation_only` rule: the agent has delegated when a `task` call appears in the
 * messages sent, or this run already has a `task` receipt (so compaction that drops the
 * call does not hide the ledger again).
 */
export function hasDelegated(messages: readonly BaseMessage[], runReceipts: readonly Receipt[]): boolean {
  if (runReceipts.some((r) => r.tool === DELEGATION_TOOL)) return true;
  return messages.some((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.name === DELEGATION_TOOL));
}
