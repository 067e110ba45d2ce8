/**
 * The `model` port: what the runtime knows of the agent's chat model, for plugins that size
 * things to it (summarization's token trigger). Every runtime supplies it (a host's `ports`
 * may replace it); its fields are absent when the model does not say.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

export const MODEL_PORT = "model";

export interface ModelPort {
  /** The model's context window in tokens (`profile.maxInputTokens` of LangChain's model profiles). */
  readonly maxInputTokens?: number;
}

export function modelPort(model: BaseChatModel): ModelPort {
  let max: unknown;
  try {
    max = (model as { profile?: { maxInputTokens?: unknown } }).profile?.maxInputTokens;
  } catch {
    // A model whose profile getter throws says nothing.
  }
  return typeof max === "number" && Number.isFinite(max) && max > 0 ? { maxInputTokens: max } : {};
}
