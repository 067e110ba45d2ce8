/**
 * `keel/host`: the parts a host embedding the run service uses (stores, stream bridges,
 * executors, reducers, request hygiene, report building). Plugin authors and most
 * embedders need only `keel`; these names may change between minor versions.
 */
export { reduceChannel, initialValue, isCommutativeReducer } from "../../kernel/channels/reducers.js";
export { RunScope, steppingClock, systemClock } from "../../kernel/loop/run-scope.js";
export { deriveStatus, primaryStopReason } from "../../kernel/loop/status.js";
export { toReportMessage, type ReportMessage } from "../../kernel/report/report-message.js";
export { buildRunReport, turnsByAgent, type RunReportInput } from "../../kernel/report/run-report.js";
export { createChildRunner, type ChildRunnerOptions } from "../../kernel/loop/children.js";
export { createRuntimeExecutor, type RuntimeExecutor, type RuntimeExecutorOptions } from "../../kernel/runs/runtime-executor.js";
export { installSignalHandlers, type SignalHandlerOptions } from "../../kernel/runs/signal-handlers.js";
export { sanitizeRunRequest } from "../../kernel/runs/request-hygiene.js";
export { runtimeOwnedChannels, runtimeOwnedKeys } from "../../kernel/compose/runtime-owned.js";
export type { RunExecutor, ExecutionIO, ExecutionResult, RollbackPoint } from "../../kernel/runs/executor.js";
export { MemoryRunStore } from "../../kernel/runs/memory-store.js";
export { MemoryStreamBridge, type MemoryBridgeStats } from "../../kernel/runs/memory-bridge.js";
// Observability a host wires: Prometheus metrics (prom-client, own Registry) and tracing from flags and environment.
export { createKeelMetrics, METRIC, type KeelMetrics, type KeelMetricsOptions, type MetricSources } from "../../plugins/metrics/index.js";
export { startHostTracing, type HostTracing, type TracingStatus } from "../../plugins/tracing/host-tracing.js";
export { resolveOtlpEndpoint } from "../../plugins/tracing/otlp-endpoint.js";
// What a StreamBridge builds on (a third-party bridge too): the shared follower, ids, gaps, control handlers.
export * from "../../kernel/runs/bridge-kit.js";
