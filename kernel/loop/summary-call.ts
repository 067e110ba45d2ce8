/**
 * A summary model's call, made by the kernel for `ctx.summarize`. It is a model call that
 * is not a turn, so it does not go through the turn's whole wrapModelCall chain: those
 * hooks shape a turn's request (projections, warnings, repairs — loop-detection would even
 * consume its pending warning on it). It goes through the chain's **retry layers** (wrap
 * hooks whose manifest declares `retries: true`, i.e. error-fallback), and the kernel gives
 * it the rest explicitly: every attempt is journaled (`model_call`, name `summarize`, with
 * its usage), the answer's usage is added to the agent's `usage` channel (which
 * token-budget counts), and a provider failure that the retry layer turned into its
 * fallback message is thrown, so the caller (summarization) fails open.
 */
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { KeelError } from "../errors.js";
import type { ModelHandler } from "../plugin/types.js";
import type { WorkingChannels } from "./working-channels.js";
import { keelMeta, messageText } from "./message-meta.js";
import { ModelCallError, normalizeResponse } from "./model-call.js";
import { normalizeUsage } from "./normalize.js";
import type { RunScope } from "./run-scope.js";
import { summaryRequestMessages, type SummaryModel } from "./summarize.js";
import { describeModel, describeResponse } from "../observe/observed.js";
import type { RunObservation } from "../observe/run-observer.js";

/** Journal entry name of a summary call (kind `model_call`); not a turn. */
export const SUMMARY_CALL_NAME = "summarize";

export interface SummaryCallContext {
  /** The turn's retry layers around a handler (HookRunner.retryOnion). */
  retryOnion(innermost: ModelHandler, state: WorkingChannels, turn: number, updates: []): ModelHandler;
  scope: RunScope;
  agent: string;
  /** The turn about to be made (summaries happen before a model call). */
  turn: number;
  signal: AbortSignal;
  state: WorkingChannels;
  /** The run's observation: every summary attempt is a model call of purpose `summarize`. */
  observation: RunObservation;
}

export async function callSummaryModel(summary: SummaryModel, messages: readonly BaseMessage[], call: SummaryCallContext): Promise<string> {
  const { scope, agent, turn, signal } = call;
  const innermost: ModelHandler = async (request) => {
    const observed = call.observation.modelCall({ turn, tools: [], purpose: "summarize", model: describeModel(summary.model) });
    const started = performance.now();
    try {
      const invoke = () => summary.model.invoke(request.messages, { signal });
      const output = observed.within ? await observed.within(invoke) : await invoke();
      const message = normalizeResponse(output as BaseMessage, `${scope.runId}:${agent}:${turn}:summary`);
      observed.end({ usage: normalizeUsage(message), ...describeResponse(message) });
      scope.journal({ agent, turn, kind: "model_call", name: SUMMARY_CALL_NAME, status: "ok", usage: normalizeUsage(message), durationMs: Math.round(performance.now() - started) });
      return message;
    } catch (error) {
      observed.fail(error);
      scope.journal({ agent, turn, kind: "model_call", name: SUMMARY_CALL_NAME, status: "error", durationMs: Math.round(performance.now() - started) });
      if (signal.aborted) throw error;
      throw new ModelCallError(error);
    }
  };
  // Retry layers only; what they write through ctx.update is not a turn's, so it is dropped.
  const handler = call.retryOnion(innermost, call.state, turn, []);
  const response: AIMessage = await handler({ messages: summaryRequestMessages(messages, summary.instructions), tools: [], state: {}, forced: false });
  const usage = normalizeUsage(response);
  if (usage.totalTokens > 0) call.state.apply({ usage: { [agent]: usage } }, "kernel (summary call)");
  const fallback = keelMeta(response).errorFallback as { message?: string } | undefined;
  if (fallback) throw new KeelError("KEEL_ERR_SUMMARIZE_FAILED", `the summary model failed: ${fallback.message ?? messageText(response)}`);
  return messageText(response);
}
