import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

/**
 * Retries belong to the stack (error-fallback), where each one is a `guard` event and a
 * journal entry. A LangChain provider client retries on its own through its AsyncCaller
 * (`maxRetries`, default 6) — invisible to the journal, and multiplying the attempts.
 * Build provider clients with `maxRetries: 0`; the runtime warns once when it can tell
 * they were not.
 */

/** `_llmType()` of LangChain's hosted-provider chat models, whose requests go through their AsyncCaller. */
const PROVIDER_TYPES = new Set(["openai", "azure_openai", "anthropic", "google_genai", "vertexai", "mistral", "groq", "bedrock", "ollama", "cohere", "xai", "deepseek"]);

/** The retries a provider chat model makes on its own, or 0 when there are none or they cannot be told. */
export function ownModelRetries(model: BaseChatModel): number {
  let type: string;
  try {
    type = model._llmType();
  } catch {
    return 0;
  }
  if (!PROVIDER_TYPES.has(type)) return 0;
  const own = (model as { maxRetries?: unknown }).maxRetries;
  const caller = (model as unknown as { caller?: { maxRetries?: unknown } }).caller?.maxRetries;
  const retries = typeof own === "number" ? own : typeof caller === "number" ? caller : 0;
  return Number.isFinite(retries) && retries > 0 ? retries : 0;
}

const warned = new Set<string>();

/** One process warning (`KEEL_WARN_MODEL_RETRIES`) per model class and retry count. */
export function warnOnModelRetries(model: BaseChatModel, emit: (message: string, options: { type: string; code: string }) => void = process.emitWarning): void {
  const retries = ownModelRetries(model);
  if (retries === 0) return;
  const message = `${model.getName()} retries failed calls on its own (maxRetries ${retries}); build it with maxRetries: 0 so error-fallback is the only retry layer and every retry is journaled`;
  if (warned.has(message)) return;
  warned.add(message);
  emit(message, { type: "KeelWarning", code: "KEEL_WARN_MODEL_RETRIES" });
}
