/**
 * Process wiring for a graceful shutdown (on SIGTERM a worker stops
 * admitting, lets runs finish for up to the grace period, then interrupts the rest).
 * The manager never installs handlers itself: the server decides, and closes its own
 * resources (HTTP listener, store, bridge) in `afterShutdown`.
 */
import type { RunManager } from "./run-manager.js";

export interface SignalHandlerOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** After the manager has shut down, e.g. close the HTTP server, the store and the bridge. */
  afterShutdown?: () => unknown;
  /** A second signal while shutting down exits at once with code 1 (default true). */
  exitOnSecondSignal?: boolean;
  /** Where a failed shutdown is reported. Default: a process warning. */
  onError?: (error: unknown) => void;
}

/**
 * @example
 * const uninstall = installSignalHandlers(manager, { afterShutdown: () => app.close() });
 * @returns a function that removes the handlers
 */
export function installSignalHandlers(manager: Pick<RunManager, "shutdown">, options: SignalHandlerOptions = {}): () => void {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`, "KeelRunManager"));
  let shuttingDown = false;
  const handler = () => {
    if (shuttingDown) {
      if (options.exitOnSecondSignal ?? true) process.exit(1);
      return;
    }
    shuttingDown = true;
    void (async () => {
      await manager.shutdown();
      await options.afterShutdown?.();
    })().catch(onError);
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
