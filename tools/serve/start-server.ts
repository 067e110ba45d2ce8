import { rmSync } from "node:fs";
import { serverModelAllowlist } from "./model-spec.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { CronScheduler } from "../../kernel/runs/cron-scheduler.js";
import { cronFireMetadata } from "../../plugins/gateway/run-metadata.js";
import { loadPluginModule } from "../stacks/load-stack.js";
import { openRunServices } from "./run-services.js";
import { loadRunModels } from "./run-models.js";
import { createServeExecutor } from "./serve-executor.js";
import { loadSummaryModels } from "./summary-models.js";
import { assertHostProtected, type ServeOptions } from "./serve-options.js";
import { prepareWorkspacesDir } from "./storage-paths.js";
import { combineObservers } from "../../kernel/observe/observed.js";
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { createKeelMetrics } from "../../plugins/metrics/index.js";
import { watchdogDeadlineForLease } from "../../plugins/workspace/index.js";
import { startHostTracing } from "../../plugins/tracing/host-tracing.js";
import { ThreadRetention } from "../../kernel/runs/thread-retention.js";
import { KeelError } from "../../kernel/errors.js";
import { loadAuthModule } from "./auth-module.js";

export interface StartedServer {
  /** `http://HOST:PORT` with the port actually bound (`--port 0` picks a free one). */
  url: string;
  /** The directory holding one workspace per thread (`--workspaces`, or derived from `--db`). */
  workspacesDir: string;
  /**
   * Graceful shutdown: the run manager stops admitting, lets running runs finish for up
   * to 10 s and interrupts the rest (their streams get `end`), then the HTTP server
   * closes and the store and bridge are closed. Idempotent.
   */
  close(): Promise<void>;
}

export interface StartContext {
  version: string;
  /** Where background problems are reported (stderr for the CLI). */
  log(line: string): void;
  cwd?: string;
  /** The environment tracing reads (OTEL_*, LANGSMITH_TRACING); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Wire a server: its services (store + checkpointer from `--db`, the bridge from
 * `--redis`, a `--plugin` service, or in memory, the gateway's `http` port) resolved
 * through compose, the executor over the served stacks and model, the run manager; then
 * listen. Anything that cannot work fails here, before the URL is printed.
 */
export async function startServer(options: ServeOptions, context: StartContext): Promise<StartedServer> {
  const cwd = context.cwd ?? process.cwd();
  const models = await loadRunModels(options.model);
  const plugins = await Promise.all(options.pluginFiles.map((file) => loadPluginModule(file, cwd)));
  const authFromFlag = options.auth ? await loadAuthModule(options.auth) : undefined;
  const summaryModels = await loadSummaryModels(options.model, options.summarizerModel, models);
  // Tracing first: asked for without the OpenTelemetry packages, the server does not start.
  const tracing = await startHostTracing(options.otlpEndpoint, context.env ?? process.env);
  const metrics = createKeelMetrics();
  const observer = combineObservers([tracing.observer, metrics.observer].filter((o): o is RunObserver => o !== undefined));
  const workspaces = prepareWorkspacesDir(options.workspaces, options.db, cwd);
  const removeTemporary = () => {
    if (workspaces.temporary) rmSync(workspaces.dir, { recursive: true, force: true });
  };
  let services: Awaited<ReturnType<typeof openRunServices>>;
  try {
    services = await openRunServices({ db: options.db, plugins, streamMemoryBytes: options.streamMemoryBytes, ...(options.redis !== undefined ? { redis: options.redis } : {}) });
  } catch (error) {
    removeTemporary();
    await tracing.shutdown();
    throw error;
  }
  let runs: RunManager | undefined;
  let retention: ThreadRetention | undefined;
  try {
    if (authFromFlag && services.auth) throw new KeelError("KEEL_ERR_SERVE_CONFIG", "both --auth and a --plugin's `auth` port give an auth handler: keep one");
    const auth = authFromFlag ?? services.auth;
    // With `--plugin`s, the non-loopback host check waits for their ports (serve-options.ts).
    assertHostProtected(options.host, options.apiKeys.size > 0 || auth !== undefined);
    // User assistants live in the `--db` database too (run-services.ts: on the run store's pool on PostgreSQL).
    const assistants = services.assistants;
    const allowedModels = serverModelAllowlist(options.model, options.summarizerModel);
    const executor = await createServeExecutor({
      stacks: options.stacks,
      models,
      ...(summaryModels ? { summaryModels } : {}),
      checkpointer: services.checkpointer,
      store: services.store,
      items: services.items,
      workspaceRoot: workspaces.dir,
      bash: options.bash,
      // A frozen worker's bash commands die before its lease can be taken over (the run manager's defaults: 30 000 / 10 000 ms).
      bashWatchdogDeadlineMs: watchdogDeadlineForLease({ leaseTtlMs: options.lease.leaseTtlMs ?? 30_000, heartbeatMs: options.lease.heartbeatMs ?? 10_000 }),
      maxTurns: options.maxTurns,
      ...(observer ? { observer } : {}),
      assistants,
      ...(allowedModels ? { allowedModels } : {}),
    });
    runs = new RunManager({
      store: services.store,
      bridge: services.bridge,
      executor,
      maxTurns: options.maxTurns,
      jobs: options.jobs,
      ...(allowedModels ? { allowedModels } : {}),
      runtimeOwnedKeys: executor.runtimeOwnedKeys,
      ...options.lease,
      observer: metrics.serviceObserver,
      log: (message, error) => context.log(`keel: ${message}${error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`}`),
    });
    runs.start();
    const manager = runs;
    // Crons fire on every worker; each tick is claimed by exactly one (kernel/runs/README.md, "Crons").
    // Each fire's run and thread carry LangGraph's stamps, as a run created through the routes does.
    const fireMetadata = cronFireMetadata({ stacks: options.stacks, ...(assistants ? { assistants } : {}) });
    const cronScheduler = new CronScheduler({ crons: services.crons, runs, store: services.store, fireMetadata, log: (message, error) => context.log(`keel: ${message}${error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`}`) });
    // Thread TTL: every worker sweeps; purges go through the run manager's deleteThread.
    retention = new ThreadRetention(
      { store: services.store, deleteThread: (threadId, o) => manager.deleteThread(threadId, o), log: (message, error) => context.log(`keel: ${message}${error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`}`) },
      { defaultTtlMinutes: options.threadTtlMinutes, sweepMinutes: options.retentionSweepMinutes },
    );
    retention.start();
    const sweeper = retention;
    const bridge = services.bridge;
    metrics.watch({ runCounts: () => manager.runCounts(), ...(bridge instanceof MemoryStreamBridge ? { bridgeStats: () => bridge.stats() } : {}) });
    const app = await services.http.create({
      deps: { runs, store: services.store, bridge: services.bridge, crons: services.crons, cronFires: cronScheduler, threadState: executor.threadState, assistants, catalog: executor.catalog, items: services.items, retention },
      apiKeys: options.apiKeys,
      ...(auth ? { auth } : {}),
      ...(options.corsOrigins.length > 0 ? { cors: { origins: options.corsOrigins } } : {}),
      stacks: options.stacks,
      version: context.version,
      model: options.model.kind,
      metrics,
      observability: { tracing: tracing.status },
      webhooks: { allowHosts: options.webhookHosts },
      // Only failures, and on stderr: stdout carries the URL line.
      logger: { level: "error", stream: process.stderr },
    });
    await app.listen({ port: options.port, host: options.host });
    cronScheduler.start();
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
      workspacesDir: workspaces.dir,
      close: () =>
        (closing ??= (async () => {
          cronScheduler.stop();
          sweeper.stop();
          await manager.shutdown();
          await app.close();
          await services.close();
          removeTemporary();
          await tracing.shutdown();
        })()),
    };
  } catch (error) {
    retention?.stop();
    await runs?.shutdown();
    await services.close();
    removeTemporary();
    await tracing.shutdown();
    throw error;
  }
}
