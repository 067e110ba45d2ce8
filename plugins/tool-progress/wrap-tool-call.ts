import type { ToolMessage } from "@langchain/core/messages";
import { messageText } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import type { HookContext, ToolHandler, ToolRequest } from "../../kernel/plugin/types.js";
import { MAX_HINTS_PER_RUN, isBlocked, observeResult, progressHint, readProgressOptions, type ToolProgressValue } from "./progress-state.js";
import { stepFold } from "./step-fold.js";
import { blockingResult, refusedResult, withHint } from "./tool-results.js";

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
    value.hints.count++;
    ctx.guard({ action: "warn", reason: "no_progress", detail: `\`${tool}\`: ${seen.entry.problems} problem results in a row` });
    return withHint(response, progressHint(tool, seen.entry.problems, options));
  }
  return response;
}

