import type { Plugin } from "../kernel/plugin/types.js";
import acceptance from "./acceptance/index.js";
import batchLeasing from "./batch-leasing/index.js";
import durableContext from "./durable-context/index.js";
import errorFallback from "./error-fallback/index.js";
import finishReason from "./finish-reason/index.js";
import loopDetection from "./loop-detection/index.js";
import messageCoalescing from "./message-coalescing/index.js";
import readBeforeWrite from "./read-before-write/index.js";
import receipts from "./receipts/index.js";
import sanitize from "./sanitize/index.js";
import subagents from "./subagents/index.js";
import summarization from "./summarization/index.js";
import tokenBudget from "./token-budget/index.js";
import toolProgress from "./tool-progress/index.js";
import workspace from "./workspace/index.js";
import humanApproval from "./human-approval/index.js";
import gateway from "./gateway/index.js";
import storeSql from "./store-sql/index.js";
import streamRedis from "./stream-redis/index.js";

/**
 * The built-in plugins, in the lead stack's listing order (then those no built-in `lead` lists). This file is the plugin
 * registry, not a plugin: it is the one place that imports every plugin folder.
 */
export const BUILTIN_PLUGINS: readonly Plugin[] = Object.freeze([
  workspace,
  sanitize,
  errorFallback,
  receipts,
  readBeforeWrite,
  toolProgress,
  subagents,
  batchLeasing,
  durableContext,
  summarization,
  loopDetection,
  finishReason,
  tokenBudget,
  acceptance,
  messageCoalescing,
  // Not in `lead`: the `lead-approval` stack (or a stack extending `lead`) turns it on.
  humanApproval,
]);

/**
 * The built-in services a host (`keel serve`) composes beside the agent stacks: the run
 * store and checkpointer, the Redis stream bridge, the HTTP gateway. Agent stacks do not
 * list them, so they are kept apart from the agent plugins above.
 */
export const SERVICE_PLUGINS: readonly Plugin[] = Object.freeze([storeSql, streamRedis, gateway]);

export function builtinPlugin(name: string): Plugin | undefined {
  return [...BUILTIN_PLUGINS, ...SERVICE_PLUGINS].find((p) => p.manifest.name === name);
}
