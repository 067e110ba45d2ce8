import type { BaseMessage } from "@langchain/core/messages";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { ChannelState, Hooks } from "../../kernel/plugin/types.js";
import { MAX_TOOL_OUTPUT_CHARS, sanitizeManifest } from "./manifest.js";
import { sanitizeHumanMessages, sanitizeToolMessage } from "./messages.js";

function sanitizeInput(state: ChannelState): { messages: BaseMessage[] } | undefined {
  const changed = sanitizeHumanMessages((state.messages as BaseMessage[] | undefined) ?? []);
  return changed.length > 0 ? { messages: changed } : undefined;
}

const hooks: Hooks = {
  beforeAgent: (state) => sanitizeInput(state),
  beforeModel: (state) => sanitizeInput(state),
  async wrapToolCall(request, next, ctx) {
    const response = await next(request);
    const max = typeof ctx.config.maxToolOutputChars === "number" ? ctx.config.maxToolOutputChars : MAX_TOOL_OUTPUT_CHARS;
    return sanitizeToolMessage(response, max);
  },
};

/**
 * Makes forged framework markers in user input and tool output inert but readable, and
 * caps one tool output at `maxToolOutputChars` (head and tail kept).
 *
 * @example
 * { "plugins": ["workspace", { "name": "sanitize", "config": { "maxToolOutputChars": 20000 } }] }
 */
export const sanitizePlugin = definePlugin({ manifest: sanitizeManifest, hooks });

export default sanitizePlugin;

export { capToolOutput, elisionMarker } from "./cap-output.js";
export { MAX_TOOL_OUTPUT_CHARS, sanitizeConfigSchema, sanitizeManifest } from "./manifest.js";
export { sanitizeHumanMessages, sanitizeToolMessage } from "./messages.js";
export { neutralizeFrameworkText } from "./neutralize.js";
