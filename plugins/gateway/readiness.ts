import type { GatewayDeps } from "./ports.js";

/** How long `GET /ready` waits for one dependency's `ping()` before counting it unreachable (ms). */
export const READY_PROBE_TIMEOUT_MS = 2_000;

/** What `GET /ready` checked: `ok`, or why not. */
export type ReadinessCheck = "ok" | "unreachable" | "shutting_down";

export interface Readiness {
  ready: boolean;
  /** `worker` (this process admits runs), `store` (the run store answers), `stream` (the stream bridge answers). */
  checks: { worker: ReadinessCheck; store: ReadinessCheck; stream: ReadinessCheck };
}

/**
 * Readiness, asked anew on every call (nothing is cached, so it turns back to ready as soon
 * as the database or Redis answers again, without a restart): the worker is not shutting
 * down, and the store's and the bridge's `ping()` (when they have one) resolve within
 * `timeoutMs`. The probes run concurrently.
 */
export async function checkReadiness(deps: GatewayDeps, timeoutMs = READY_PROBE_TIMEOUT_MS): Promise<Readiness> {
  const [store, stream] = await Promise.all([probe(deps.store.ping?.bind(deps.store), timeoutMs), probe(deps.bridge.ping?.bind(deps.bridge), timeoutMs)]);
  const worker: ReadinessCheck = deps.runs.isShuttingDown ? "shutting_down" : "ok";
  return { ready: worker === "ok" && store === "ok" && stream === "ok", checks: { worker, store, stream } };
}

async function probe(ping: (() => Promise<void>) | undefined, timeoutMs: number): Promise<ReadinessCheck> {
  if (!ping) return "ok";
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(() => resolve("unreachable"), timeoutMs);
  });
  try {
    return await Promise.race([
      ping().then(
        () => "ok" as const,
        () => "unreachable" as const,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The 503 body's message: which dependencies are not ready. */
export function notReadyMessage(readiness: Readiness): string {
  const problems = Object.entries(readiness.checks)
    .filter(([, check]) => check !== "ok")
    .map(([name, check]) => (check === "shutting_down" ? `the ${name} is shutting down` : `the ${name} is unreachable`));
  return `not ready: ${problems.join("; ")}`;
}
