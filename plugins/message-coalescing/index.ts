import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks } from "../../kernel/plugin/types.js";
import { coalesceMessages, hasRepairs, isCoalesced } from "./coalesce.js";
import { messageCoalescingManifest } from "./manifest.js";

const hooks: Hooks = {
  /** Repair the request as sent (never the thread); a repair is reported as a `custom` event. */
  async wrapModelCall(request, next, ctx) {
    // Nothing to repair (the common turn): the request passes on as it is, not copied.
    if (isCoalesced(request.messages)) return next(request);
    const { messages, repairs } = coalesceMessages(request.messages);
    if (hasRepairs(repairs)) ctx.emit("custom", { plugin: "message-coalescing", agent: ctx.agent, turn: ctx.turn, kind: "repaired", ...repairs });
    return next({ ...request, messages });
  },
};

/**
 * The message-coalescing plugin (plugins/message-coalescing/README.md).
 *
 * @example
 * { "plugins": ["workspace", "summarization", "message-coalescing"] }
 */
export const messageCoalescingPlugin = definePlugin({ manifest: messageCoalescingManifest, hooks });

export default messageCoalescingPlugin;

export { coalesceMessages, DANGLING_RESULT, isCoalesced, hasRepairs, OPENING_PLACEHOLDER, type CoalesceRepairs } from "./coalesce.js";
export { isSystemPart, mergeSystemParts } from "./merge-system.js";
export { messageCoalescingConfigSchema, messageCoalescingManifest } from "./manifest.js";
