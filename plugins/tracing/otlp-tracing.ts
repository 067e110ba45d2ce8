/**
 * OTLP/HTTP export of Keel's spans (JSON encoding), for hosts that own their process
 * (`keel serve`, `keel run`): a TracerProvider of its own with a batch span processor, not
 * registered globally. A library user with a TracerProvider of their own uses
 * `tracingObserver()` instead, and the spans go to that provider.
 */
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { otelObserver } from "./otel-observer.js";
import { loadOtelApi, loadOtlpPackages } from "./otel-packages.js";
import type { PackageImporter, TracerSource } from "./public-types.js";

export interface OtlpTracingOptions {
  /** The OTLP/HTTP traces URL (`resolveOtlpEndpoint`). */
  endpoint: string;
  /** `service.name` of the resource. Default `OTEL_SERVICE_NAME`, else `keel`. */
  serviceName?: string;
  /** Extra headers on every export (`OTEL_EXPORTER_OTLP_HEADERS` is read by the exporter too). */
  headers?: Record<string, string>;
  /** For tests: how the packages are imported. */
  importer?: PackageImporter;
}

export interface OtlpTracing {
  readonly endpoint: string;
  /** Give this to `createAgentRuntime({ observer })` (or combine it with others). */
  readonly observer: RunObserver;
  /** Export every finished span now. */
  flush(): Promise<void>;
  /** Flush, then stop exporting (idempotent). */
  shutdown(): Promise<void>;
}

/**
 * Start exporting. Throws `KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING` (naming every package to
 * install) when an OpenTelemetry package is missing.
 *
 * @example
 * const tracing = await startOtlpTracing({ endpoint: "http://127.0.0.1:4318/v1/traces" });
 * const runtime = createAgentRuntime(composition, { model, observer: tracing.observer });
 * await runtime.run({ threadId: "t1", runId: "r1", input: "Hello" });
 * await tracing.shutdown();
 */
export async function startOtlpTracing(options: OtlpTracingOptions): Promise<OtlpTracing> {
  const { api, sdk, resources, exporter } = await loadOtlpPackages(options.importer);
  const serviceName = options.serviceName ?? (process.env.OTEL_SERVICE_NAME?.trim() || "keel");
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": serviceName, "service.version": KERNEL_VERSION }),
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url: options.endpoint, ...(options.headers ? { headers: options.headers } : {}) }))],
  });
  let stopped: Promise<void> | undefined;
  return {
    endpoint: options.endpoint,
    observer: otelObserver(api, provider),
    flush: () => provider.forceFlush(),
    shutdown: () => (stopped ??= provider.shutdown()),
  };
}

/**
 * The observer for a host that set OpenTelemetry up itself: spans go to `provider`, or to the
 * global TracerProvider (`trace.setGlobalTracerProvider`, `NodeTracerProvider.register()`).
 * Needs only `@opentelemetry/api`.
 *
 * @example
 * const observer = await tracingObserver(); // after provider.register()
 * const runtime = createAgentRuntime(composition, { model, observer });
 */
export async function tracingObserver(provider?: TracerSource, importer?: PackageImporter): Promise<RunObserver> {
  return otelObserver(await loadOtelApi(importer), provider);
}
