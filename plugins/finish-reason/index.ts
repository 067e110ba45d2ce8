import type { BaseMessage } from "@langchain/core/messages";
import { lastAssistant } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks } from "../../kernel/plugin/types.js";
import { finishStop, type FinishOptions } from "./classify.js";
import { finishReasonManifest } from "./manifest.js";

const hooks: Hooks = {
  /** Classify the raw finish reason of the response just produced; request a stop when it is unsafe to go on. */
  afterModel(state, ctx) {
    const ai = lastAssistant((state.messages as BaseMessage[] | undefined) ?? []);
    if (!ai) return;
    const stop = finishStop(ai, ctx.config as unknown as FinishOptions);
    if (!stop) return;
    ctx.guard({ action: "stop", reason: stop.reason, detail: stop.detail });
    const entry: StopReasonEntry = { reason: stop.reason, by: "finish-reason", turn: ctx.turn, detail: stop.detail, request: stop.request };
    return { stopReasons: [entry] };
  },
};

/**
 * The finish-reason guard (plugins/finish-reason/README.md).
 *
 * @example
 * { "plugins": ["workspace", "finish-reason"], "config": { "finish-reason": { "length": false } } }
 */
export const finishReasonPlugin = definePlugin({ manifest: finishReasonManifest, hooks });

export default finishReasonPlugin;

export { FINISH_FIELDS, finishStop, LENGTH_FINISH, rawFinish, SAFETY_FINISH, type FinishOptions, type FinishStop, type Provider, type RawFinish } from "./classify.js";
export { finishReasonConfigSchema, finishReasonManifest } from "./manifest.js";
