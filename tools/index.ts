/** The `keel` package entry: the kernel API plus stack loading and the built-in plugins. */
export * from "../kernel/index.js";
// Replaces the kernel's `compose` (above): the same, with the built-in plugins and stack names available.
export { compose } from "./stacks/compose-stack.js";
export { loadStack, readStack, loadPluginModule, BUILTIN_STACKS, type LoadedStack } from "./stacks/load-stack.js";
export { BUILTIN_PLUGINS, builtinPlugin } from "../plugins/builtins.js";
// Tracing (the OpenTelemetry packages are optional peers, imported only when called).
// (Named file by file: the public declarations mention no OpenTelemetry type, so `keel` type-checks without those packages.)
export { startOtlpTracing, tracingObserver, type OtlpTracing, type OtlpTracingOptions } from "../plugins/tracing/otlp-tracing.js";
export type { TracerSource } from "../plugins/tracing/public-types.js";

/**
 * Deprecated here: the host internals (stores, bridges, executors, reducers,
 * `sanitizeRunRequest`, `buildRunReport`, …) moved to `keel/host`. `keel` re-exports them
 * for one more minor version (they go in 0.3.0); import them from `keel/host`. Names added to
 * `keel/host` since (the stream-bridge kit) are there only.
 */
export {
  reduceChannel, initialValue, isCommutativeReducer, RunScope, steppingClock, systemClock, deriveStatus, primaryStopReason,
  toReportMessage, buildRunReport, turnsByAgent, createChildRunner, createRuntimeExecutor, installSignalHandlers,
  sanitizeRunRequest, MemoryRunStore, MemoryStreamBridge,
  type ReportMessage, type RunReportInput, type ChildRunnerOptions, type RuntimeExecutor, type RuntimeExecutorOptions,
  type SignalHandlerOptions, type RunExecutor, type ExecutionIO, type ExecutionResult, type RollbackPoint,
} from "./host/index.js";
