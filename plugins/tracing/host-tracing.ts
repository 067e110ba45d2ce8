/**
 * Tracing as a host (`keel serve`, `keel run`) sets it up: OTLP export when an endpoint is
 * configured, nothing loaded otherwise, and what is on, truthfully, for `/info`.
 */
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import { langsmithTracingEnabled } from "./langsmith.js";
import { redactedEndpoint, resolveOtlpEndpoint } from "./otlp-endpoint.js";
import type { PackageImporter } from "./public-types.js";
import { startOtlpTracing } from "./otlp-tracing.js";

/** What `/info` reports under `tracing`. */
export interface TracingStatus {
  /** The OTLP/HTTP traces URL spans are exported to (credentials removed), or null when off. */
  otlp: string | null;
  /** LangChain's LangSmith tracing (LANGSMITH_TRACING=true …), which Keel does not control. */
  langsmith: boolean;
}

export interface HostTracing {
  status: TracingStatus;
  /** Undefined when OTLP export is off. */
  observer?: RunObserver;
  /** Flush and stop the exporter (nothing to do when off); never rejects (an unreachable collector loses its spans). */
  shutdown(): Promise<void>;
}

/**
 * `--otlp-endpoint` (or the OTEL_* environment) → the host's tracing. The OpenTelemetry
 * packages are imported only when export is on; missing, they are
 * `KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING`.
 */
export async function startHostTracing(flag: string | undefined, env: NodeJS.ProcessEnv, importer?: PackageImporter): Promise<HostTracing> {
  const endpoint = resolveOtlpEndpoint(flag, env);
  const langsmith = langsmithTracingEnabled(env);
  if (endpoint === undefined) return { status: { otlp: null, langsmith }, shutdown: async () => undefined };
  const tracing = await startOtlpTracing({ endpoint, ...(importer ? { importer } : {}) });
  return { status: { otlp: redactedEndpoint(endpoint), langsmith }, observer: tracing.observer, shutdown: () => tracing.shutdown().catch(() => undefined) };
}
