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
export { RunReportV2, ModelRequestV2, ModelRequestDelta, CopiedMessages } from "./run-report/v2.js";
export { upgrade as upgradeRunReportV1, project as projectRunReportV2, encodeModelRequests, expandModelRequests } from "./run-report/migrate.js";
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
export { StatusV1, LEGACY_STATUSES, LEGACY_STOP_REASONS, RESULT_BRIEF_CHARS, type LegacyStatus, type LegacyStopReason } from "./status/v1.js";
export { upgrade as upgradeStatusV1, project as projectStatusV2, primaryOf as primaryStopReasonOf, toResultBrief } from "./status/migrate.js";
export { SubagentReturnV1, Verification } from "./subagent-return/v1.js";
export { ReceiptV1, ReceiptId, ShortSha256, RECEIPT_STATUSES } from "./receipt/v1.js";
export { ReceiptVerdictV1, FailedCitation } from "./receipt-verdict/v1.js";
export { AcceptanceVerdictV1, AcceptanceLeaf } from "./acceptance-verdict/v1.js";
export { DelegationV1, DelegationLease, DELEGATION_STATUSES, DESCRIPTION_CHARS, type DelegationStatus } from "./delegation/v1.js";
export { LeaseV1, LEASE_STATES, type LeaseState } from "./lease/v1.js";
export { RunV1, RUN_RECORD_STATUSES, MULTITASK_STRATEGIES, RUN_STATUS_OF_OUTCOME, type RunRecordStatus, type MultitaskStrategy } from "./run/v1.js";
export { upgrade, project, latestVersion } from "./upgrade.js";
export { MIGRATIONS, type Migration } from "./migrations.js";
export { diffSchemas, CHANGE_CODES, COMPATIBILITY_MODES, isCompatible, type ChangeCode, type CompatibilityMode, type SchemaChange, type SchemaDiff } from "./compat/index.js";
