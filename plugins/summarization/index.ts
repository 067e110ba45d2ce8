import type { BaseMessage } from "@langchain/core/messages";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { HookContext, Hooks } from "../../kernel/plugin/types.js";
import { compactHistory } from "./compact.js";
import { estimateTokens } from "./estimate-tokens.js";
import { summarizationManifest } from "./manifest.js";
import { readSummary, type SummarizationOptions } from "./summary-state.js";

const optionsOf = (ctx: HookContext) => ctx.config as unknown as SummarizationOptions;

const hooks: Hooks = {
  /** Before each model call: compact when the history is over the message or token trigger. */
  async beforeModel(state, ctx) {
    const messages = (state.messages as BaseMessage[] | undefined) ?? [];
    const options = optionsOf(ctx);
    const previous = readSummary(state.summary);
    const tokens = estimateTokens(messages, previous?.lastMessageId ?? null);
    const tokenLimit = options.triggerFraction * options.contextTokens;
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
