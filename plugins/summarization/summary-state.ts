/** The `summary` channel: the latest summary and what it covers. */
export interface SummaryState {
  /** The summary of everything compacted so far (each compaction re-summarizes the previous summary with the newly cut messages). */
  text: string;
  /** How many compactions this thread has had. */
  compactions: number;
  /** Conversation messages summarized in total (summary markers not counted). */
  summarizedMessages: number;
  /**
   * The newest message when the last compaction ran. Assistant messages up to it were
   * produced before the cut, so their provider-reported input tokens describe the old,
   * longer history and must not trigger another compaction.
   */
  lastMessageId: string | null;
  at: string;
  runId: string;
  agent: string;
}

export interface SummarizationOptions {
  triggerMessages: number;
  triggerFraction: number;
  /** Unset: the model's context window (the `model` port), else DEFAULT_CONTEXT_TOKENS. */
  contextTokens?: number;
  keepMessages: number;
}

/** The stored summary, or undefined when the thread has never been compacted (or holds something else). */
export function readSummary(value: unknown): SummaryState | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const s = value as Partial<SummaryState>;
  return typeof s.text === "string" && typeof s.compactions === "number" ? (s as SummaryState) : undefined;
}
