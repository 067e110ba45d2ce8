import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import type { HookContext } from "../../kernel/plugin/types.js";
import { chooseCut } from "./choose-cut.js";
import { isSummaryMarker, summaryMarker } from "./summary-marker.js";
import type { SummaryState } from "./summary-state.js";
import { pinnedRequest, taskRequestIndexes } from "./task-requests.js";

export interface Compaction {
  /** The `messages` update: remove everything, then the new list (system, summary, tail). */
  messages: BaseMessage[];
  summary: SummaryState;
  /** Conversation messages summarized by this compaction and removed (an earlier summary message and pinned requests not counted). */
  replaced: number;
  kept: number;
}

/**
 * Summarize everything between the leading system messages and the kept tail, and build
 * the replacement history: system, the pinned task requests, the summary, the tail. The
 * task is never summarized away: the first and the latest user request, when they fall
 * before the tail, stay in the thread verbatim (up to `PINNED_REQUEST_CHARS` each) right
 * after the system messages — so every later compaction, a summary of a summary, pins
 * them again. The summarizer still sees them whole, with everything else it summarizes.
 * The messages reducer appends new messages at the end, so the summary could not land
 * before the tail through a plain update: the update is the whole new list after a
 * `REMOVE_ALL_MESSAGES` removal (LangGraph's reducer keeps only what follows it). An
 * earlier summary message falls in the summarized part, so the new summary covers it too.
 */
export async function compactHistory(messages: readonly BaseMessage[], keep: number, previous: SummaryState | undefined, ctx: HookContext): Promise<Compaction | null> {
  const cut = chooseCut(messages, keep);
  if (!cut) return null;
  const older = messages.slice(cut.head, cut.start);
  const task = taskRequestIndexes(messages);
  const pinnedAt = new Set([task?.first, task?.latest].filter((i): i is number => i !== undefined && i >= cut.head && i < cut.start));
  const pinned = [...pinnedAt].sort((a, b) => a - b).map((i) => pinnedRequest(messages[i]!));
  const replaced = older.filter((m, i) => !isSummaryMarker(m) && !pinnedAt.has(cut.head + i)).length;
  // Only an earlier summary and the pinned requests before the tail: summarizing again would gain nothing.
  if (replaced === 0) return null;

  let text: string;
  try {
    text = (await ctx.summarize([...older])).trim();
  } catch (error) {
    // Fail open: a summarizer outage must not end the run; the history stays as it is and
    // the next turn tries again. A cancelled run still ends.
    if (ctx.signal.aborted) throw error;
    ctx.emit("custom", { plugin: "summarization", agent: ctx.agent, kind: "summarize_failed", message: error instanceof Error ? error.message : String(error) });
    return null;
  }
  const compactions = (previous?.compactions ?? 0) + 1;
  const marker = summaryMarker(text, `${ctx.runId}:${ctx.agent}:summary:${ctx.turn}`, { compaction: compactions, replaced });
  const kept = [...messages.slice(0, cut.head), ...pinned, marker, ...messages.slice(cut.start)];
  return {
    messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept],
    summary: {
      text: text || `(${replaced} earlier messages; the summarizer returned no text)`,
      compactions,
      summarizedMessages: (previous?.summarizedMessages ?? 0) + replaced,
      lastMessageId: messages[messages.length - 1]?.id ?? null,
      at: ctx.now(),
      runId: ctx.runId,
      agent: ctx.agent,
    },
    replaced,
    kept: messages.length - cut.start,
  };
}
