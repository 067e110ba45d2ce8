import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { toolProgressManifest } from "./manifest.js";
import { sendProgressHints, trackToolProgress } from "./wrap-tool-call.js";

/**
 * Tool-progress guard: per (thread, tool) active → warned → blocked. A tool that fails or
 * repeats itself gets a hint, then is refused with `[TOOL_BLOCKED]` for the rest of the run
 * (stop reason `progress_blocked`, the run itself goes on).
 *
 * @example
 * { "plugins": ["workspace", "tool-progress"], "config": { "tool-progress": { "blockAfter": 4 } } }
 */
export const toolProgressPlugin = definePlugin({
  manifest: toolProgressManifest,
  hooks: { wrapToolCall: trackToolProgress, wrapModelCall: sendProgressHints },
});

export default toolProgressPlugin;

export { AUTH_OR_CONFIG_PATTERNS, isAuthOrConfigError } from "./auth-errors.js";
export { toolProgressChannelSchema, toolProgressConfigSchema, toolProgressManifest } from "./manifest.js";
export {
  DEFAULT_PROGRESS_OPTIONS,
  MAX_HINTS_PER_RUN,
  RECENT_RESULTS,
  effectiveEntry,
  isBlocked,
  observeResult,
  progressHint,
  readProgressOptions,
  type Observation,
  type ProblemCause,
  type ProgressOptions,
  type ToolProgressEntry,
  type ToolProgressValue,
  type ToolStatus,
} from "./progress-state.js";
export { BLOCKED_PREFIX, blockingResult, refusedResult } from "./tool-results.js";
export { EXEMPT_TOOLS, sendProgressHints, trackToolProgress } from "./wrap-tool-call.js";
export { MIN_UNIQUE_WORDS, SKETCH_SIZE, jaccard, wordHash, wordSketch, wordsOf, type WordSketch } from "./word-sets.js";
