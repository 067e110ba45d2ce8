import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { keelMeta, setKeelMeta } from "../../kernel/loop/message-meta.js";

/**
 * Keel metadata key of the message that replaces the compacted history. durable-context
 * looks for it (the key is part of both plugins' documented behaviour, not an import):
 * when it projects the same summary from the `summary` channel, it shortens this message
 * in the request so the summary is not sent twice.
 */
export const SUMMARY_MARKER_META = "summaryMarker";

export const SUMMARY_HEADING = "[Summary of the earlier conversation]";

export interface SummaryMarkerInfo {
  /** The compaction that wrote it (1-based, per thread). */
  compaction: number;
  /** Conversation messages this compaction replaced. */
  replaced: number;
}

/**
 * The persisted message standing for the compacted history: a hidden user message holding
 * the summary itself, so the thread stays self-contained with or without durable-context.
 */
export function summaryMarker(text: string, id: string, info: SummaryMarkerInfo): HumanMessage {
  const body = text.trim() || `(${info.replaced} earlier messages; the summarizer returned no text)`;
  const message = new HumanMessage({ content: `${SUMMARY_HEADING}\n${body}`, id });
  return setKeelMeta(message, { hidden: true, [SUMMARY_MARKER_META]: info }) as HumanMessage;
}

export function isSummaryMarker(message: BaseMessage): boolean {
  return keelMeta(message)[SUMMARY_MARKER_META] !== undefined;
}
