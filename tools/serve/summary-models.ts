import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ModelSpec } from "./model-spec.js";
import { loadRunModels, type RunModels } from "./run-models.js";

/** A run's summary model (fresh per run, like the run's own model). */
export type SummaryModels = (runId: string) => BaseChatModel;

/**
 * Which model writes a server's summaries: `--summarizer-model` when given; else the
 * run's model when it is a real one; else none — `demo` and `scripted:` models keep the
 * deterministic extractive summarizer, so scenarios stay reproducible. Provider clients
 * are built exactly as the run's (run-models.ts), so they carry the same settings.
 */
export async function loadSummaryModels(model: ModelSpec, summarizer: ModelSpec | undefined, runModels: RunModels): Promise<SummaryModels | undefined> {
  if (summarizer) {
    const models = await loadRunModels(summarizer);
    return (runId) => models.forLead(runId);
  }
  if (model.kind === "openai" || model.kind === "anthropic") return (runId) => runModels.forLead(runId);
  return undefined;
}
