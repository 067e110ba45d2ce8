import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { keelMeta, lastAssistant, setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { TokenAllowancePort } from "../../kernel/ports/agents.js";
import type { HookContext, Hooks } from "../../kernel/plugin/types.js";
import { budgetWarning, countNewUsage, judgeBudget, openBudget, usageLine, withKernelUsage, type BudgetOptions, type BudgetState } from "./ledger.js";
import { tokenBudgetManifest } from "./manifest.js";

const optionsOf = (ctx: HookContext) => ctx.config as unknown as BudgetOptions;

/** The stored account when it belongs to this run and agent. */
function accountFor(stored: unknown, ctx: HookContext): BudgetState | undefined {
  const s = stored as BudgetState | undefined;
  return s && s.runId === ctx.runId && s.agent === ctx.agent ? s : undefined;
}

const hooks: Hooks = {
  /** Open this run's account: every assistant message present now predates the run. */
  beforeAgent(state, ctx) {
    if (!optionsOf(ctx).enabled) return;
    return { budget: openBudget((state.messages as BaseMessage[] | undefined) ?? [], ctx.runId, ctx.agent) };
  },

  /** Count the usage of the call just made; warn once, and request the stop once. */
  afterModel(state, ctx) {
    const options = optionsOf(ctx);
    if (!options.enabled) return;
    const messages = (state.messages as BaseMessage[] | undefined) ?? [];
    // beforeAgent always opens the account; without one, only the newest response is this run's.
    const current = accountFor(state.budget, ctx) ?? openBudget(messages.slice(0, -1), ctx.runId, ctx.agent);
    const counted = withKernelUsage(countNewUsage(current, messages), state.usage, ctx.agent);
    // The forced final answer is paid from the reserve: counted, never judged.
    const ai = lastAssistant(messages);
    if (ai && keelMeta(ai).forced === true) return counted === state.budget ? undefined : { budget: counted };

    const verdict = judgeBudget(counted, options, ctx.turn);
    if (verdict.warn) ctx.guard({ action: "warn", reason: "token_capped", detail: usageLine(verdict.state, options) });
    if (!verdict.stop) return verdict.state === state.budget ? undefined : { budget: verdict.state };

    const detail = `${usageLine(verdict.state, options)}; ${Math.round(options.returnReserve * 100)}% of the limit is kept for the final answer`;
    ctx.guard({ action: "stop", reason: "token_capped", detail });
    const stop: StopReasonEntry = {
      reason: "token_capped",
      by: "token-budget",
      turn: ctx.turn,
      detail,
      limit: { type: "tokens", value: options.limit },
      request: "final",
    };
    return { budget: verdict.state, stopReasons: [stop] };
  },

  /** The request right after the warning threshold ends with one hidden warning (never on the forced call). */
  async wrapModelCall(request, next, ctx) {
    const options = optionsOf(ctx);
    const account = accountFor(request.state.budget, ctx);
    if (!options.enabled || request.forced || !account || account.cappedTurn !== null || account.warnedTurn !== ctx.turn - 1) return next(request);
    const warning = setKeelMeta(new HumanMessage(budgetWarning(account, options)), { hidden: true });
    return next({ ...request, messages: [...request.messages, warning] });
  },
};

/**
 * The token-budget guard (plugins/token-budget/README.md).
 *
 * @example
 * { "plugins": ["workspace", "token-budget"], "config": { "token-budget": { "limit": 50000 } } }
 */
export const tokenBudgetPlugin = definePlugin({
  manifest: tokenBudgetManifest,
  hooks,
  services: {
    /** The `token-allowance` port (kernel/ports/agents.ts): the budget a child's stack enforces, for the lease that grants it. */
    "token-allowance": (config): TokenAllowancePort => ({
      budget: () => (config.enabled === false ? undefined : { limit: Number(config.limit), returnReserve: Number(config.returnReserve) }),
    }),
  },
});

export default tokenBudgetPlugin;

export {
  budgetWarning,
  countNewUsage,
  judgeBudget,
  withKernelUsage,
  openBudget,
  stopThreshold,
  usageLine,
  type BudgetOptions,
  type BudgetState,
  type BudgetVerdict,
} from "./ledger.js";
export { budgetChannelSchema, tokenBudgetConfigSchema, tokenBudgetManifest } from "./manifest.js";
