import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { keelMeta, lastAssistant, setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks } from "../../kernel/plugin/types.js";
import { loopDetectionManifest } from "./manifest.js";
import { loopStateFor, trackToolCalls, type LoopOptions, type LoopState } from "./tracker.js";

/**
 * A stop already requested in this step (by a guard whose afterModel runs first, such as
 * finish-reason's `safety_capped` or token-budget's `token_capped`) makes the kernel strip
 * the message's tool calls: they never run, so they are not counted.
 */
function stopRequestedNow(state: Readonly<Record<string, unknown>>, turn: number): boolean {
  const stops = (state.stopReasons as StopReasonEntry[] | undefined) ?? [];
  return stops.some((s) => s.turn === turn && (s.request === "final" || s.request === "end"));
}

const hooks: Hooks = {
  /** Count the tool calls of the assistant message just produced; queue warnings or request the stop. */
  afterModel(state, ctx) {
    const ai = lastAssistant((state.messages as BaseMessage[] | undefined) ?? []);
    // A forced final answer's calls are discarded by the kernel (or protected, like return_result).
    if (!ai || keelMeta(ai).forced === true || (ai.tool_calls?.length ?? 0) === 0) return;
    if (stopRequestedNow(state, ctx.turn)) return;
    const current = loopStateFor(state.loop, ctx.runId, ctx.agent);
    const messageId = ai.id ?? null;
    if (messageId !== null && current.lastMessageId === messageId) return;

    const verdict = trackToolCalls(current, ai.tool_calls!, ctx.config as unknown as LoopOptions, messageId);
    if (verdict.stop) {
      ctx.guard({ action: "stop", reason: "loop_capped", detail: verdict.stop.detail });
      const stop: StopReasonEntry = {
        reason: "loop_capped",
        by: "loop-detection",
        turn: ctx.turn,
        detail: verdict.stop.detail,
        limit: { type: "calls", value: verdict.stop.limit },
        request: "final",
      };
      return { loop: verdict.state, stopReasons: [stop] };
    }
    for (const warning of verdict.warnings) ctx.guard({ action: "warn", reason: "loop_capped", detail: warning.detail });
    return { loop: verdict.state };
  },

  /**
   * Inject the queued warnings as one hidden user message at the very end of the request:
   * after the last tool result, never between a tool call and its results. A forced final
   * call gets none (the kernel already tells the model why it must answer).
   */
  async wrapModelCall(request, next, ctx) {
    const loop = request.state.loop as LoopState | undefined;
    // Warnings left by an earlier run of the thread are stale.
    if (!loop || loop.runId !== ctx.runId || loop.agent !== ctx.agent || loop.pending.length === 0) return next(request);
    ctx.update({ loop: { ...loop, pending: [] } });
    if (request.forced) return next(request);
    const warning = setKeelMeta(new HumanMessage(loop.pending.join("\n\n")), { hidden: true });
    return next({ ...request, messages: [...request.messages, warning] });
  },
};

/**
 * The loop-detection guard (plugins/loop-detection/README.md).
 *
 * @example
 * { "plugins": ["workspace", "loop-detection"], "config": { "loop-detection": { "hardLimit": 4, "perTool": { "read_file": { "hardLimit": 100 } } } } }
 */
export const loopDetectionPlugin = definePlugin({ manifest: loopDetectionManifest, hooks });

export default loopDetectionPlugin;

export { callKey, callKeys, describeCalls, hashToolCalls, READ_BUCKET_LINES, SALIENT_ARGS, type CallLike } from "./call-key.js";
export { loopChannelSchema, loopDetectionConfigSchema, loopDetectionManifest } from "./manifest.js";
export {
  freshLoopState,
  loopStateFor,
  FREQUENCY_EXEMPT,
  MAX_PENDING,
  trackToolCalls,
  WARNING_PREFIX,
  type LoopOptions,
  type LoopState,
  type LoopStop,
  type LoopVerdict,
  type LoopWarning,
} from "./tracker.js";
