/** The series `/metrics` exposes (docs/observability.md has the table). */
export const METRIC = {
  runsFinished: "keel_runs_finished_total",
  runsPending: "keel_runs_pending",
  runsRunning: "keel_runs_running",
  runsExecuting: "keel_runs_executing",
  leaseExpirations: "keel_lease_expirations_total",
  reaperActions: "keel_reaper_actions_total",
  bridgeBytes: "keel_stream_bridge_memory_bytes",
  bridgeEvents: "keel_stream_bridge_memory_events",
  bridgeRuns: "keel_stream_bridge_memory_runs",
  modelDuration: "keel_model_call_duration_seconds",
  modelTokens: "keel_model_tokens_total",
  toolCalls: "keel_tool_calls_total",
} as const;

/** Model latency buckets, in seconds: provider calls take from a few hundred ms to minutes. */
export const MODEL_DURATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
