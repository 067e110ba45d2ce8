export { validateAgainst, compileSchema, type ValidationIssue, type ValidationResult } from "./ajv.js";
export { defineContract, publishedSchema, contractId, type ContractDefinition } from "./define.js";
export { HOOK_NAMES, type HookName } from "./shared.js";
export { ManifestV1, type Reference, type HookDeclaration, type ReducerSpec, type ChannelDeclaration } from "./manifest/v1.js";
export { StackV1, type StackEntry } from "./stack/v1.js";
export {
  contracts,
  getContract,
  parseContractRef,
  contractSchema,
  validate,
  assertValid,
  dropUnknownProperties,
  type ContractRef,
  type ValidateOptions,
} from "./registry.js";
export { StatusV2, StopReason, StopLimit, StatusError, RUN_STATUSES, LIMIT_TYPES, type RunStatus } from "./status/v2.js";
export {
  ScenarioV1,
  AgentScript,
  AgentScripts,
  ScriptedTurn,
  ScriptedToolCall,
  ScriptedUsage,
  ScriptedBash,
  ScriptedFault,
  PluginConfigMap,
} from "./scenario/v1.js";
export { RunReportV1, ReportMessage, ReportToolCall, ModelRequest, TurnCounts, ReportUsage, WorkspaceFile } from "./run-report/v1.js";
export {
  StreamEventV1,
  StreamEventId,
  GuardEventData,
  TaskEventData,
  GapEventData,
  STREAM_EVENT_NAMES,
  GUARD_ACTIONS,
  type StreamEventName,
} from "./stream-event/v1.js";
export { JournalEntryV1, JOURNAL_KINDS } from "./journal-entry/v1.js";
