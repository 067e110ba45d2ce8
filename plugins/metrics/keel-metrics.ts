/**
 * Prometheus metrics of a Keel host, on a Registry of its own (never prom-client's global
 * one, so an application's own metrics and Keel's stay apart). Counters are fed by two
 * observers the kernel calls (a RunObserver for model and tool calls, a RunServiceObserver
 * for terminal statuses, leases and the reaper); gauges are read at scrape time from the run
 * manager (its store's counts) and the memory stream bridge.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import type { RunServiceObserver } from "../../kernel/runs/run-service-observer.js";
import { METRIC, MODEL_DURATION_BUCKETS } from "./metric-names.js";

/** What the gauges read at scrape time (`RunManager.runCounts()`, `MemoryStreamBridge.stats()`). */
export interface MetricSources {
  runCounts?(): Promise<{ executing: number; pending?: number; running?: number }>;
  bridgeStats?(): { runs: number; events: number; bytes: number };
}

export interface KeelMetricsOptions {
  /** Milliseconds, for model call latency. Default `performance.now()`. */
  now?: () => number;
  /** Prefix-free labels added to every series (e.g. `{ worker: "w1" }`). */
  defaultLabels?: Record<string, string>;
}

export interface KeelMetrics {
  readonly registry: Registry;
  /** Give to `createAgentRuntime({ observer })` (combine with tracing's through `combineObservers`). */
  readonly observer: RunObserver;
  /** Give to `new RunManager({ observer })`. */
  readonly serviceObserver: RunServiceObserver;
  /** Where the gauges read from; call once the run manager and bridge exist. */
  watch(sources: MetricSources): void;
  /** The Prometheus text exposition of every series. */
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * @example
 * const metrics = createKeelMetrics();
 * const runs = new RunManager({ store, bridge, executor, observer: metrics.serviceObserver });
 * metrics.watch({ runCounts: () => runs.runCounts(), bridgeStats: () => bridge.stats() });
 * const text = await metrics.render();
 */
export function createKeelMetrics(options: KeelMetricsOptions = {}): KeelMetrics {
  const now = options.now ?? (() => performance.now());
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  const registers = [registry];
  let sources: MetricSources = {};

  const runsFinished = new Counter({ name: METRIC.runsFinished, help: "Runs that reached a terminal status, by status (success, error, timeout, interrupted) and who wrote it (worker, cancel, reaper).", labelNames: ["status", "ended_by"], registers });
  const leaseExpirations = new Counter({ name: METRIC.leaseExpirations, help: "Run leases found expired, by who saw it (the reaper, or the owner whose heartbeat was refused).", labelNames: ["seen_by"], registers });
  const reaperActions = new Counter({ name: METRIC.reaperActions, help: "What the lease reaper did: sweep, reaped, skipped (the owner renewed in time), local_abort.", labelNames: ["action"], registers });
  const modelDuration = new Histogram({ name: METRIC.modelDuration, help: "Model call latency per attempt, in seconds.", labelNames: ["model", "provider", "purpose", "outcome"], buckets: MODEL_DURATION_BUCKETS, registers });
  const modelTokens = new Counter({ name: METRIC.modelTokens, help: "Tokens of answered model calls, by direction (input, output) and model.", labelNames: ["direction", "model"], registers });
  const toolCalls = new Counter({ name: METRIC.toolCalls, help: "Tool calls, by tool and result status (success, error).", labelNames: ["tool", "status"], registers });

  const runGauge = (name: string, help: string, read: (counts: Awaited<ReturnType<NonNullable<MetricSources["runCounts"]>>>) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const counts = await sources.runCounts?.();
        const value = counts ? read(counts) : undefined;
        if (value !== undefined) this.set(value);
      },
    });
  runGauge(METRIC.runsPending, "Runs waiting to start, in the store (every worker's).", (c) => c.pending);
  runGauge(METRIC.runsRunning, "Runs running, in the store (every worker's).", (c) => c.running);
  runGauge(METRIC.runsExecuting, "Runs executing on this worker.", (c) => c.executing);
  const bridgeGauge = (name: string, help: string, key: "bytes" | "events" | "runs") =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const stats = sources.bridgeStats?.();
        if (stats) this.set(stats[key]);
      },
    });
  bridgeGauge(METRIC.bridgeBytes, "Approximate bytes of the events the in-memory stream bridge holds (id, name and JSON data).", "bytes");
  bridgeGauge(METRIC.bridgeEvents, "Events the in-memory stream bridge holds.", "events");
  bridgeGauge(METRIC.bridgeRuns, "Runs whose event log the in-memory stream bridge holds.", "runs");

  const observer: RunObserver = {
    runStarted: () => ({
      end: () => undefined,
      fail: () => undefined,
      modelCall(call) {
        const started = now();
        const labels = { model: call.model.name, provider: call.model.provider, purpose: call.purpose };
        return {
          end(result) {
            modelDuration.observe({ ...labels, outcome: "ok" }, (now() - started) / 1000);
            modelTokens.inc({ direction: "input", model: call.model.name }, result.usage.inputTokens);
            modelTokens.inc({ direction: "output", model: call.model.name }, result.usage.outputTokens);
          },
          fail() {
            modelDuration.observe({ ...labels, outcome: "error" }, (now() - started) / 1000);
          },
        };
      },
      toolCall(call) {
        return {
          end: (result) => toolCalls.inc({ tool: call.name, status: result.status }),
          fail: () => toolCalls.inc({ tool: call.name, status: "error" }),
        };
      },
    }),
  };

  const serviceObserver: RunServiceObserver = {
    runEnded: (status, by) => runsFinished.inc({ status, ended_by: by }),
    leaseExpired: (seenBy) => leaseExpirations.inc({ seen_by: seenBy }),
    reaperAction: (action) => reaperActions.inc({ action }),
  };

  return {
    registry,
    observer,
    serviceObserver,
    watch: (next) => void (sources = next),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
