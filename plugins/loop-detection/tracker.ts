import { describeCalls, hashToolCalls, type CallLike } from "./call-key.js";

/** Warnings waiting for the next model request; older ones are dropped beyond this. */
export const MAX_PENDING = 4;
export const WARNING_PREFIX = "[LOOP WARNING]";

export interface LoopOptions {
  warnAt: number;
  hardLimit: number;
  window: number;
  toolWarnAt: number;
  toolHardLimit: number;
  perTool: Readonly<Record<string, { warnAt?: number; hardLimit?: number }>>;
  /**
   * Tools the per-tool frequency rule does not count (default `task`, `return_result`:
   * delegation limits belong to batch-leasing). A `perTool` entry makes a tool count again.
   * The repeated-call-set rule still counts them.
   */
  frequencyExempt?: readonly string[];
}

/** The default of `frequencyExempt`: delegation and a child's hand-back are bounded elsewhere. */
export const FREQUENCY_EXEMPT = ["task", "return_result"] as const;

/** The `loop` channel: one agent run's tracking state (a new run starts fresh). */
export interface LoopState {
  runId: string;
  agent: string;
  /** Id of the last assistant message counted (the same message is never counted twice). */
  lastMessageId: string | null;
  /** Hashes of the last `window` assistant tool-call messages, oldest first. */
  window: string[];
  /** Hashes already warned about (each repeated call set is warned once). */
  warnedHashes: string[];
  /** Calls per tool name in this run, whatever their arguments. */
  toolCounts: Record<string, number>;
  /** Tools already warned about for frequency. */
  warnedTools: string[];
  /** Warning texts to inject at the end of the next model request (at most MAX_PENDING). */
  pending: string[];
}

export interface LoopWarning {
  text: string;
  detail: string;
}

export interface LoopStop {
  detail: string;
  limit: number;
}

export interface LoopVerdict {
  state: LoopState;
  /** Warnings raised by this message (already queued in `state.pending`). */
  warnings: LoopWarning[];
  /** A hard limit was reached: the run must stop. Warnings are not queued then. */
  stop: LoopStop | null;
}

export function freshLoopState(runId: string, agent: string): LoopState {
  return { runId, agent, lastMessageId: null, window: [], warnedHashes: [], toolCounts: {}, warnedTools: [], pending: [] };
}

/** The stored state when it belongs to this run and agent, else a fresh one. */
export function loopStateFor(stored: unknown, runId: string, agent: string): LoopState {
  const s = stored as Partial<LoopState> | undefined;
  if (s && s.runId === runId && s.agent === agent && Array.isArray(s.window) && Array.isArray(s.pending)) return s as LoopState;
  return freshLoopState(runId, agent);
}

/** Whether the per-tool frequency rule counts this tool. */
function countsFrequency(options: LoopOptions, tool: string): boolean {
  return !(options.frequencyExempt ?? FREQUENCY_EXEMPT).includes(tool) || options.perTool[tool] !== undefined;
}

function toolLimits(options: LoopOptions, tool: string): { warnAt: number; hardLimit: number } {
  const own = options.perTool[tool] ?? {};
  return { warnAt: own.warnAt ?? options.toolWarnAt, hardLimit: own.hardLimit ?? options.toolHardLimit };
}

/**
 * Account for the tool calls of one assistant message. The same call set for the
 * `warnAt`-th time within the last `window` tool-call messages warns (once per call set);
 * the `hardLimit`-th time stops. Each tool's calls across different arguments are counted
 * for the whole run: warn at `toolWarnAt`, stop at `toolHardLimit` (per-tool overrides);
 * tools in `frequencyExempt` are not counted there (they still count in call sets).
 */
export function trackToolCalls(state: LoopState, calls: readonly CallLike[], options: LoopOptions, messageId: string | null): LoopVerdict {
  const hash = hashToolCalls(calls);
  const window = [...state.window, hash].slice(-options.window);
  const repeats = window.filter((h) => h === hash).length;
  const toolCounts = { ...state.toolCounts };
  const counted = calls.filter((c) => countsFrequency(options, c.name));
  for (const call of counted) toolCounts[call.name] = (toolCounts[call.name] ?? 0) + 1;
  const next: LoopState = { ...state, lastMessageId: messageId, window, toolCounts };
  const names = [...new Set(counted.map((c) => c.name))].sort();

  if (repeats >= options.hardLimit) {
    const detail = `the same tool calls ${repeats} times in the last ${options.window} tool-call turns: ${describeCalls(calls)}`;
    return { state: next, warnings: [], stop: { detail, limit: options.hardLimit } };
  }
  for (const name of names) {
    const { hardLimit } = toolLimits(options, name);
    if (toolCounts[name]! >= hardLimit) {
      return { state: next, warnings: [], stop: { detail: `tool \`${name}\` called ${toolCounts[name]} times in this run (limit ${hardLimit})`, limit: hardLimit } };
    }
  }

  const warnings: LoopWarning[] = [];
  if (repeats >= options.warnAt && !state.warnedHashes.includes(hash)) {
    const what = describeCalls(calls);
    next.warnedHashes = [...state.warnedHashes, hash];
    warnings.push({
      detail: `the same tool calls ${repeats} times in the last ${options.window} tool-call turns: ${what}`,
      text:
        `${WARNING_PREFIX} You have made the same tool calls ${repeats} times in your last ${options.window} tool-call turns: ${what}. ` +
        `Repeating them will not give you new information. Change your approach, or stop calling tools and give your final answer. ` +
        `At ${options.hardLimit} repeats the run is stopped.`,
    });
  }
  for (const name of names) {
    const { warnAt, hardLimit } = toolLimits(options, name);
    if (toolCounts[name]! >= warnAt && !next.warnedTools.includes(name)) {
      next.warnedTools = [...next.warnedTools, name];
      warnings.push({
        detail: `tool \`${name}\` called ${toolCounts[name]} times in this run (warn at ${warnAt}, limit ${hardLimit})`,
        text:
          `${WARNING_PREFIX} You have called \`${name}\` ${toolCounts[name]} times in this run. ` +
          `At ${hardLimit} calls the run is stopped; finish the task with what you have, or give your final answer.`,
      });
    }
  }
  next.pending = [...state.pending, ...warnings.map((w) => w.text)].slice(-MAX_PENDING);
  return { state: next, warnings, stop: null };
}
