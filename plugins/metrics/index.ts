/**
 * Prometheus metrics of a Keel host (prom-client, a Registry of its own): `keel serve`
 * exposes them on `GET /metrics`. See this folder's README and docs/observability.md.
 */
export { createKeelMetrics, type KeelMetrics, type KeelMetricsOptions, type MetricSources } from "./keel-metrics.js";
export { METRIC, MODEL_DURATION_BUCKETS } from "./metric-names.js";
