import { HumanMessage, type AIMessage, type ToolMessage } from "@langchain/core/messages";
import { messageText, setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import type { HookContext, ModelHandler, ModelRequest, ToolHandler, ToolRequest } from "../../kernel/plugin/types.js";
import { MAX_HINTS_PER_RUN, isBlocked, observeResult, progressHint, readProgressOptions, type ToolProgressValue } from "./progress-state.js";
import { stepFold } from "./step-fold.js";
import { blockingResult, refusedResult } from "./tool-results.js";

/** Tools never judged: delegation and a child's final answer must always be able to run. */
export const EXEMPT_TOOLS: ReadonlySet<string> = new Set(["task", "return_result"]);

const PLUGIN = "tool-progress";

function stopReason(ctx: HookContext, detail: string): StopReasonEntry {
  // No `request`: the run goes on (the model may change strategy); the outcome is at best partial.
  return { reason: "progress_blocked", by: PLUGIN, turn: ctx.turn, detail };
}

export async function trackToolProgress(request: ToolRequest, next: ToolHandler, ctx: HookContext): Promise<ToolMessage> {
  const tool = request.toolCall.name;
  if (EXEMPT_TOOLS.has(tool)) return next(request);
  const options = readProgressOptions(ctx.config);
  const value = stepFold(ctx, request.state.toolProgress as ToolProgressValue | undefined);

  const before = value.tools[tool];
  if (isBlocked(before, ctx.runId)) {
    const reason = before!.reason ?? `\`${tool}\` is blocked for the rest of this run`;
    ctx.guard({ action: "refuse", reason: "progress_blocked", detail: `refused a call of blocked tool \`${tool}\` (${request.toolCall.id})` });
    ctx.update({ stopReasons: [stopReason(ctx, reason)] });
    return refusedResult(request.toolCall, reason);
  }

  const response = await next(request);
  // Re-read: a parallel call of the same tool may have folded its result meanwhile.
  const current = value.tools[tool];
  if (isBlocked(current, ctx.runId)) return response; // ran concurrently with the call that blocked the tool
  const seen = observeResult(tool, current, { text: messageText(response), isError: response.status === "error" }, options, ctx.runId);
  value.tools[tool] = seen.entry;
  ctx.update({ toolProgress: value });

  if (seen.action === "block") {
    const reason = seen.entry.reason!;
    ctx.guard({ action: "block", reason: "progress_blocked", detail: reason });
    ctx.update({ stopReasons: [stopReason(ctx, reason)] });
    return blockingResult(response, reason);
  }
  if (seen.action === "warn" && value.hints.count < MAX_HINTS_PER_RUN) {
    value.hints = { ...value.hints, count: value.hints.count + 1, pending: [...(value.hints.pending ?? []), progressHint(tool, seen.entry.problems, options)] };
    ctx.update({ toolProgress: value });
    ctx.guard({ action: "warn", reason: "no_progress", detail: `\`${tool}\`: ${seen.entry.problems} problem results in a row` });
  }
  return response;
}

/**
 * The hints waiting from the tool calls before this model call, as one hidden user message
 * at the very end of the request (after the last tool result, with loop warnings). A forced
 * final call gets none; hints left by an earlier run of the thread are dropped.
 */
export async function sendProgressHints(request: ModelRequest, next: ModelHandler, ctx: HookContext): Promise<AIMessage> {
  const value = request.state.toolProgress as ToolProgressValue | undefined;
  const pending = value?.hints.pending ?? [];
  if (value === undefined || pending.length === 0) return next(request);
  ctx.update({ toolProgress: { ...value, hints: { runId: value.hints.runId, count: value.hints.count } } });
  if (request.forced || value.hints.runId !== ctx.runId) return next(request);
  const hint = setKeelMeta(new HumanMessage(pending.join("\n\n")), { hidden: true });
  return next({ ...request, messages: [...request.messages, hint] });
}

