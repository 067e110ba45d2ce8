import type { BaseMessage } from "@langchain/core/messages";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { HookContext, Hooks } from "../../kernel/plugin/types.js";
import { MODEL_PORT, type ModelPort } from "../../kernel/ports/model.js";
import { compactHistory } from "./compact.js";
import { estimateTokens } from "./estimate-tokens.js";
import { summarizationManifest } from "./manifest.js";
import { readSummary, type SummarizationOptions } from "./summary-state.js";

const optionsOf = (ctx: HookContext) => ctx.config as unknown as SummarizationOptions;

/** The context window when neither the config nor the model names one. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/** `contextTokens` from the config, else the model's context window (the runtime's `model` port), else 128000. */
function contextTokensOf(options: SummarizationOptions, ctx: HookContext): number {
  if (options.contextTokens !== undefined) return options.contextTokens;
  let model: ModelPort | undefined;
  try {
    model = ctx.port<ModelPort>(MODEL_PORT);
  } catch {
    // A host without the port (a hook called outside a runtime): the default.
  }
  return model?.maxInputTokens ?? DEFAULT_CONTEXT_TOKENS;
}

const hooks: Hooks = {
  /** Before each model call: compact when the history is over the message or token trigger. */
  async beforeModel(state, ctx) {
    const messages = (state.messages as BaseMessage[] | undefined) ?? [];
    const options = optionsOf(ctx);
    const previous = readSummary(state.summary);
    const tokens = estimateTokens(messages, previous?.lastMessageId ?? null);
    const tokenLimit = options.triggerFraction * contextTokensOf(options, ctx);
    if (messages.length <= options.triggerMessages && tokens <= tokenLimit) return;

    const compaction = await compactHistory(messages, options.keepMessages, previous, ctx);
    if (!compaction) return;
    ctx.emit("custom", {
      plugin: "summarization",
      agent: ctx.agent,
      kind: "compacted",
      trigger: messages.length > options.triggerMessages ? "messages" : "tokens",
      messages: messages.length,
      estimatedTokens: tokens,
      summarized: compaction.replaced,
      kept: compaction.kept,
    });
    return { messages: compaction.messages, summary: compaction.summary };
  },
};

/**
 * The summarization plugin (plugins/summarization/README.md).
 *
 * @example
 * { "plugins": ["workspace", "summarization"], "config": { "summarization": { "triggerMessages": 120, "keepMessages": 20 } } }
 */
export const summarizationPlugin = definePlugin({ manifest: summarizationManifest, hooks });

export default summarizationPlugin;

export { chooseCut, type Cut } from "./choose-cut.js";
export { compactHistory, type Compaction } from "./compact.js";
export { estimateTokens, messageChars } from "./estimate-tokens.js";
export { summarizationConfigSchema, summarizationManifest, summaryChannelSchema } from "./manifest.js";
export { isSummaryMarker, SUMMARY_HEADING, SUMMARY_MARKER_META, summaryMarker, type SummaryMarkerInfo } from "./summary-marker.js";
export { readSummary, type SummarizationOptions, type SummaryState } from "./summary-state.js";
export { CLIPPED_REQUEST_META, isUserRequest, PINNED_REQUEST_CHARS, pinnedRequest, taskRequestIndexes } from "./task-requests.js";
