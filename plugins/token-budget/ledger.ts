import { AIMessage, type BaseMessage } from "@langchain/core/messages";

export interface BudgetOptions {
  enabled: boolean;
  limit: number;
  warnAt: number;
  returnReserve: number;
}

/** The `budget` channel: one agent run's token account. */
export interface BudgetState {
  runId: string;
  agent: string;
  /** The last assistant message present when the run started: it and everything older predate the run. */
  baselineLastId: string | null;
  /** Assistant messages of this run already counted (ids). */
  counted: string[];
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Turn whose usage crossed `warnAt` (the next request carries the warning), or null. */
  warnedTurn: number | null;
  /** Turn at which the stop was requested, or null. */
  cappedTurn: number | null;
}

function lastAiId(messages: readonly BaseMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (AIMessage.isInstance(m) && m.id) return m.id;
  }
  return null;
}

/** A new account whose baseline is the assistant messages present now (they predate the run). */
export function openBudget(messages: readonly BaseMessage[], runId: string, agent: string): BudgetState {
  return { runId, agent, baselineLastId: lastAiId(messages), counted: [], inputTokens: 0, outputTokens: 0, totalTokens: 0, warnedTurn: null, cappedTurn: null };
}

function tokens(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * Add the usage of assistant messages not yet counted. Walks back from the newest message
 * and stops at the first one already counted or at the baseline, so messages that predate
 * the run are never counted and compaction (which keeps a contiguous tail) cannot make an
 * old message look new. Messages without an id cannot be deduplicated and are skipped.
 */
export function countNewUsage(state: BudgetState, messages: readonly BaseMessage[]): BudgetState {
  const counted = new Set(state.counted);
  const fresh: AIMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (!AIMessage.isInstance(m) || !m.id) continue;
    if (m.id === state.baselineLastId || counted.has(m.id)) break;
    fresh.push(m);
  }
  if (fresh.length === 0) return state;
  let { inputTokens, outputTokens } = state;
  for (const m of fresh) {
    inputTokens += tokens(m.usage_metadata?.input_tokens);
    outputTokens += tokens(m.usage_metadata?.output_tokens);
  }
  const ids = fresh.map((m) => m.id!).reverse();
  return { ...state, counted: [...state.counted, ...ids], inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/**
 * The kernel's `usage` of this agent run also counts model calls that leave no assistant
 * message (summary calls): the account is raised to it when it is larger. (`usage` is
 * reset when a run starts, so it is this run's; the message tally stays the floor.)
 */
export function withKernelUsage(state: BudgetState, usage: unknown, agent: string): BudgetState {
  const mine = (usage as Record<string, { inputTokens?: unknown; outputTokens?: unknown }> | undefined)?.[agent];
  const inputTokens = Math.max(state.inputTokens, tokens(mine?.inputTokens));
  const outputTokens = Math.max(state.outputTokens, tokens(mine?.outputTokens));
  if (inputTokens === state.inputTokens && outputTokens === state.outputTokens) return state;
  return { ...state, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

export interface BudgetVerdict {
  state: BudgetState;
  /** The warning threshold was crossed by this call (once per run). */
  warn: boolean;
  /** The stop threshold was crossed by this call (once per run). */
  stop: boolean;
}

/** Tokens at which the stop is requested: the rest of the limit is the reserve for the final answer. */
export function stopThreshold(options: BudgetOptions): number {
  return options.limit * (1 - options.returnReserve);
}

/** Warn once at `warnAt × limit`; request the stop once at `(1 − returnReserve) × limit`. */
export function judgeBudget(state: BudgetState, options: BudgetOptions, turn: number): BudgetVerdict {
  const fraction = state.totalTokens / options.limit;
  const warn = state.warnedTurn === null && fraction >= options.warnAt;
  const stop = state.cappedTurn === null && state.totalTokens >= stopThreshold(options);
  if (!warn && !stop) return { state, warn, stop };
  return { state: { ...state, ...(warn ? { warnedTurn: turn } : {}), ...(stop ? { cappedTurn: turn } : {}) }, warn, stop };
}

const percent = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;

export function usageLine(state: BudgetState, options: BudgetOptions): string {
  return `used ${state.totalTokens} of ${options.limit} tokens (${percent(state.totalTokens, options.limit)})`;
}

/** The hidden message the next request carries after the warning threshold. */
export function budgetWarning(state: BudgetState, options: BudgetOptions): string {
  return (
    `[TOKEN BUDGET WARNING] This run has ${usageLine(state, options)}. ` +
    `At ${percent(stopThreshold(options), options.limit)} your tools are withdrawn and you must give your final answer. ` +
    "Finish the essential work now and prepare your final report."
  );
}
