import type { LeaseV1 } from "../../contracts/lease/v1.js";

export interface LeasingOptions {
  concurrency: number;
  total: number;
  budget: number;
  minAllowance: number;
  leaseTtlMs: number;
  heartbeatMs: number;
}

const clamp = (value: unknown, lo: number, hi: number, fallback: number) =>
  typeof value === "number" && Number.isFinite(value) ? Math.min(hi, Math.max(lo, Math.floor(value))) : fallback;

/** Bounds of `concurrency` (a configured 1 grants 2) and of `total`. */
export const CONCURRENCY_RANGE = [2, 4] as const;
export const TOTAL_RANGE = [1, 50] as const;

/** Options with defaults; `concurrency` is clamped to 2–4 (a configured 1 grants 2) and `total` to 1–50. */
export function readLeasingOptions(config: Readonly<Record<string, unknown>>): LeasingOptions {
  return {
    concurrency: clamp(config.concurrency, CONCURRENCY_RANGE[0], CONCURRENCY_RANGE[1], 3),
    total: clamp(config.total, TOTAL_RANGE[0], TOTAL_RANGE[1], 6),
    budget: clamp(config.budget, 1, Number.MAX_SAFE_INTEGER, 3_000_000),
    minAllowance: clamp(config.minAllowance, 1, Number.MAX_SAFE_INTEGER, 50_000),
    leaseTtlMs: clamp(config.leaseTtlMs, 10, Number.MAX_SAFE_INTEGER, 60_000),
    heartbeatMs: clamp(config.heartbeatMs, 10, Number.MAX_SAFE_INTEGER, 10_000),
  };
}

export interface BatchCall {
  id: string;
  subagentType: string;
  description: string;
}

export type RefusalReason = "subagent_limit_capped" | "budget_exceeded";

export type Decision =
  | { call: BatchCall; granted: true; allowance: number; returnReserve: number }
  | { call: BatchCall; granted: false; reason: RefusalReason; limit: { type: "subagents" | "tokens"; value: number }; detail: string };

export interface BatchInput {
  calls: readonly BatchCall[];
  /** Leases granted earlier in this run. */
  runLeases: readonly LeaseV1[];
  /** Tokens a finished lease's child used; undefined when unknown (its whole allowance then counts). */
  usedBy(lease: LeaseV1): number | undefined;
  /** The child's token-budget options before any lease, when known. */
  childBudget(subagentType: string): { limit: number; returnReserve: number } | undefined;
}

/** Tokens of the shared budget taken: active leases reserve their allowance, ended ones cost what their child used. */
export function spentTokens(input: Pick<BatchInput, "runLeases" | "usedBy">): number {
  return input.runLeases.reduce((sum, lease) => sum + (lease.state === "active" ? lease.tokenAllowance : (input.usedBy(lease) ?? lease.tokenAllowance)), 0);
}

/**
 * Decide one batch, calls in order. Granted = min(concurrency, total minus children already
 * started in this run, calls the remaining shared budget can fund). A call is fundable while
 * at least `minAllowance` tokens remain; its allowance is min(child limit, budget / total),
 * at least `minAllowance`, at most what remains. Count refusals come first: a call beyond
 * the counts is `subagent_limit_capped` whatever the budget says.
 *
 * @example
 * decideBatch({ calls: five, runLeases: [], usedBy: () => undefined, childBudget: () => undefined }, options)
 * // three granted (500,000 tokens each), two refused with subagent_limit_capped (limit: subagents 3)
 */
export function decideBatch(input: BatchInput, options: LeasingOptions): { decisions: Decision[]; remaining: number } {
  let remaining = Math.max(0, options.budget - spentTokens(input));
  const started = input.runLeases.length;
  const share = Math.floor(options.budget / options.total);
  let granted = 0;
  const decisions: Decision[] = input.calls.map((call): Decision => {
    if (granted >= options.concurrency) {
      const detail = `at most ${options.concurrency} subagents run per batch, and ${granted} calls of this message were granted`;
      return { call, granted: false, reason: "subagent_limit_capped", limit: { type: "subagents", value: options.concurrency }, detail };
    }
    if (started + granted >= options.total) {
      const detail = `this run may start at most ${options.total} subagents, and ${started + granted} were started`;
      return { call, granted: false, reason: "subagent_limit_capped", limit: { type: "subagents", value: options.total }, detail };
    }
    if (remaining < options.minAllowance) {
      const detail = `the shared subagent budget of ${options.budget} tokens has ${remaining} left, below the minimum allowance of ${options.minAllowance}`;
      return { call, granted: false, reason: "budget_exceeded", limit: { type: "tokens", value: options.budget }, detail };
    }
    const child = input.childBudget(call.subagentType);
    const allowance = Math.min(remaining, Math.max(options.minAllowance, Math.min(child?.limit ?? share, share)));
    remaining -= allowance;
    granted += 1;
    return { call, granted: true, allowance, returnReserve: Math.ceil(allowance * (child?.returnReserve ?? 0.15)) };
  });
  return { decisions, remaining };
}
