/**
 * OpenTelemetry tracing of Keel runs (GenAI semantic conventions), exported over OTLP/HTTP
 * when configured. The OpenTelemetry packages are optional peer dependencies, imported only
 * when tracing is on. See this folder's README and docs/observability.md.
 */
export { otelObserver, type TracerSource } from "./otel-observer.js";
export { startOtlpTracing, tracingObserver, type OtlpTracing, type OtlpTracingOptions } from "./otlp-tracing.js";
export { resolveOtlpEndpoint, redactedEndpoint, TRACES_PATH } from "./otlp-endpoint.js";
export { startHostTracing, type HostTracing, type TracingStatus } from "./host-tracing.js";
export { langsmithTracingEnabled, LANGSMITH_TRACING_VARIABLES } from "./langsmith.js";
export { loadOtelApi, loadOtlpPackages, OTLP_PACKAGES, type PackageImporter } from "./otel-packages.js";
export { GEN_AI, KEEL, OPERATION, spanName, TRACER_NAME } from "./span-names.js";
