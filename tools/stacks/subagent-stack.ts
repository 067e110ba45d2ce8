import { compose } from "../../kernel/compose/index.js";
import type { ComposeOptions, Composition, StackInput } from "../../kernel/compose/types.js";
import type { Plugin } from "../../kernel/plugin/types.js";

/**
 * A child's token-budget `limit` when nothing configures one: a child whose stack compacts
 * its context (summarization) needs less room than one whose history only grows.
 */
export const SUBAGENT_TOKEN_LIMIT = { withSummarization: 1_000_000, withoutSummarization: 2_000_000 } as const;

const BUDGET = "token-budget";

/** The default token-budget `limit` of a composed subagent stack: 1,000,000 with summarization, 2,000,000 without. */
export function subagentTokenLimit(composition: Composition): number {
  return composition.plugins.has("summarization") ? SUBAGENT_TOKEN_LIMIT.withSummarization : SUBAGENT_TOKEN_LIMIT.withoutSummarization;
}

function entryConfig(entry: StackInput["plugins"][number]): Record<string, unknown> | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  if ("plugin" in entry) return (entry.plugin as Plugin).manifest.name === BUDGET ? entry.config : undefined;
  if ("name" in entry && !("manifest" in entry)) return entry.name === BUDGET ? (entry as { config?: Record<string, unknown> }).config : undefined;
  return undefined;
}

/** Whether the stack entry or any config layer sets token-budget's `limit` (then it wins). */
function limitConfigured(stack: StackInput, layers: NonNullable<ComposeOptions["config"]>): boolean {
  const inEntry = stack.plugins.some((entry) => entryConfig(entry)?.limit !== undefined);
  const inLayer = layers.some((layer) => (layer?.[BUDGET] as Record<string, unknown> | undefined)?.limit !== undefined);
  return inEntry || inLayer;
}

/**
 * Compose a subagent stack. Its token-budget `limit`, when neither the stack entry nor a
 * config layer sets one (a lease's allowance is such a layer), is derived here, from the
 * composed stack: 1,000,000 when it has summarization, 2,000,000 when it has not. The
 * derived value is the first layer, so every configured layer still wins.
 *
 * @example
 * const sub = await loadStack("subagent");
 * composeSubagentStack(sub.stack, { plugins: sub.plugins }).plugins.get("token-budget")!.config.limit; // 1000000
 */
export function composeSubagentStack(stack: StackInput, options: ComposeOptions = {}): Composition {
  const composition = compose(stack, options);
  const layers = options.config ?? [];
  if (!composition.plugins.has(BUDGET) || limitConfigured(stack, layers)) return composition;
  return compose(stack, { ...options, config: [{ [BUDGET]: { limit: subagentTokenLimit(composition) } }, ...layers] });
}
