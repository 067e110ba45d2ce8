/**
 * `keel serve` workers of the suite: real processes on loopback, on the suite's PostgreSQL
 * and Redis, one shared `--workspaces` directory, the nemesis scenario as their model.
 * Every worker is tracked by pid and stopped by pid (`stopAllWorkers`).
 */
import { join } from "node:path";
import { startServe, type ServeProcess } from "../e2e/serve-process.js";
import { sleep } from "./services.js";

export const SCENARIO = join(import.meta.dirname, "fixtures", "nemesis.scenario.json");

/**
 * Lease timing of every worker: TTL 5 s (`KEEL_NEMESIS_LEASE_TTL_MS` overrides it, at least
 * 5000), five heartbeats per TTL, the reaper every 500 ms.
 */
const ttlMs = Math.max(5_000, Number(process.env.KEEL_NEMESIS_LEASE_TTL_MS ?? 5_000) || 5_000);
export const LEASE = { ttlMs, heartbeatMs: Math.round(ttlMs / 5), reaperMs: 500 };

export interface WorkerSetup {
  cwd: string;
  db: string;
  redis: string;
  workspaces: string;
  apiKeys: string;
  extraEnv?: Record<string, string>;
}

export class Worker {
  paused = false;
  constructor(readonly name: string, readonly process: ServeProcess) {}
  get url(): string {
    return this.process.url;
  }
  get pid(): number {
    return this.process.child.pid!;
  }
  get alive(): boolean {
    return this.process.child.exitCode === null && this.process.child.signalCode === null;
  }
  kill(signal: NodeJS.Signals): void {
    if (!this.alive) return;
    process.kill(this.pid, signal);
    if (signal === "SIGSTOP") this.paused = true;
    if (signal === "SIGCONT") this.paused = false;
  }
  /** Signal and wait for the exit (SIGKILL after 30 s). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.paused) this.kill("SIGCONT");
    const exited = this.process.stop(signal);
    const timer = setTimeout(() => this.alive && process.kill(this.pid, "SIGKILL"), 30_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

const started: Worker[] = [];

export async function startWorker(name: string, setup: WorkerSetup): Promise<Worker> {
  const env = {
    KEEL_API_KEYS: setup.apiKeys,
    KEEL_LEASE_TTL_MS: String(LEASE.ttlMs),
    KEEL_HEARTBEAT_MS: String(LEASE.heartbeatMs),
    KEEL_REAPER_MS: String(LEASE.reaperMs),
    ...setup.extraEnv,
  };
  const args = ["--port", "0", "--db", setup.db, "--redis", setup.redis, "--workspaces", setup.workspaces, "--model", `scripted:${SCENARIO}`];
  const worker = new Worker(name, await startServe(args, { cwd: setup.cwd, env }));
  started.push(worker);
  return worker;
}

/** Start `names` one after the other (each runs the schema migrations at start). */
export async function startWorkers(names: string[], setup: WorkerSetup): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (const name of names) workers.push(await startWorker(name, setup));
  return workers;
}

/** Every worker this process started that is still alive: SIGCONT if paused, SIGTERM, SIGKILL after 15 s. */
export async function stopAllWorkers(): Promise<void> {
  await Promise.all(
    started.splice(0).map(async (worker) => {
      if (!worker.alive) return;
      if (worker.paused) worker.kill("SIGCONT");
      const exited = worker.process.stop("SIGTERM");
      const killed = sleep(15_000).then(() => worker.alive && process.kill(worker.pid, "SIGKILL"));
      await Promise.race([exited, killed]);
    }),
  );
}

/** Worker output, for a failure message. */
export function workerLogs(workers: Worker[]): string {
  return workers.map((w) => `--- ${w.name} (pid ${w.pid})\n${w.process.output().stdout.slice(-4000)}\n${w.process.output().stderr.slice(-4000)}`).join("\n");
}
