/**
 * The kernel's public API (what `keel` exports for good): plugins, compose, the agent
 * runtime, the run manager, errors and the helpers plugins use. Host internals are in
 * tools/host (`keel/host`).
 */
export { definePlugin, toPlugin, isPluginLike, type PluginDefinition } from "./plugin/define-plugin.js";
export { validateManifest, type ManifestProblem } from "./plugin/validate-manifest.js";
export type * from "./plugin/types.js";
export { compose } from "./compose/index.js";
export type * from "./compose/types.js";
export { ERRORS, KeelError, CompositionError, isKeelError, type KeelErrorCode, type CompositionProblem, type ErrorSpec } from "./errors.js";
export { KERNEL_CHANNELS, KERNEL_PRODUCES, PSEUDO_CHANNELS } from "./channels/kernel-channels.js";
export { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions, type RunOptions, type RunResult } from "./loop/runtime.js";
export type { Clock, RunSink, StreamEventRecord, JournalRecord, ModelRequestRecord } from "./loop/run-scope.js";
export type { StatusV2Payload, StopReason, StopReasonEntry, RunError } from "./loop/status.js";
export { keelMeta, setKeelMeta, isHidden, messageText, usableText, lastAssistant, type KeelMessageMeta, type NormalizedFinish } from "./loop/message-meta.js";
export { normalizeFinish, normalizeUsage, type TokenUsage } from "./loop/normalize.js";
export { extractiveSummary, modelSummarizer, SUMMARY_INSTRUCTIONS, type Summarizer, type SummarizeOption, type SummaryModel } from "./loop/summarize.js";
export { canonicalJson, sha256Hex } from "./hashing.js";
export { KERNEL_VERSION } from "./version.js";
export type { WorkspacePort } from "./ports/workspace.js";
export { WORKSPACE_PORT } from "./ports/workspace.js";
export { MODEL_PORT, type ModelPort } from "./ports/model.js";
export { ITEM_STORE_PORT, type ItemStore, type ItemValue, type StoredItem } from "./ports/item-store.js";
export { UserItemStore } from "./ports/user-item-store.js";
export { MemoryItemStore } from "./runs/memory-item-store.js";
export { RunManager, type RunManagerOptions, type CreateRunOptions, type WaitRunOptions, type CancelRunOptions, type CancelAction, type ThreadScope, type ListRunsOptions } from "./runs/run-manager.js";
export type { RunReport } from "./report/run-report.js";
export type * from "./ports/agents.js";
export { fromLangChainMiddleware, type LangChainMiddlewareLike, type LangChainManifestPart, type LangChainMiddlewareOptions, type LangChainStateHook } from "./interop/langchain-middleware.js";
export type { LangChainTool, ToolLike } from "./interop/langchain-tools.js";
export { combineObservers } from "./observe/observed.js";
export type * from "./observe/run-observer.js";
export type { RunServiceObserver, RunEndedBy, ReaperAction } from "./runs/run-service-observer.js";
