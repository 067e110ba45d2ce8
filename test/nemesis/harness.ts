/**
 * One nemesis cluster: the suite's PostgreSQL and Redis, three `keel serve` workers on
 * them with one shared workspaces directory, the recorder, the audit, and the checks.
 */
import { mkdirSync, readdirSync, readlinkSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { tempDir } from "../e2e/serve-process.js";
import { installAudit, readStoreView } from "./audit.js";
import { checkHistory, summaryLine, type CheckResult, type History, type StoredRun } from "./history.js";
import { Recorder } from "./recorder.js";
import { PostgresCluster, RedisServer, sleep, until } from "./services.js";
import { startWorker, stopAllWorkers, type Worker, type WorkerSetup } from "./workers.js";

/** Users of the suite: one API key per user, `nk<i>:nemesis-<i>`; the per-user active-run limit (8) is per key. */
export const USERS = 40;
export const keyOf = (i: number) => `nk${i}`;
const API_KEYS = Array.from({ length: USERS }, (_, i) => `${keyOf(i)}:nemesis-${i}`).join(",");

export interface ScenarioFigures {
  scenario: string;
  result: CheckResult;
  ms: number;
}

export class Nemesis {
  readonly rec = new Recorder(keyOf(0));
  readonly workers = new Map<string, Worker>();
  readonly figures: ScenarioFigures[] = [];
  private db!: pg.Client;
  private nextKey = 1;
  private constructor(readonly root: string, readonly pg: PostgresCluster, readonly redis: RedisServer) {}

  get workspaces(): string {
    return join(this.root, "workspaces");
  }

  static async start(names: string[]): Promise<Nemesis> {
    const root = tempDir("keel-nemesis-");
    let postgres: PostgresCluster | undefined;
    let redis: RedisServer | undefined;
    try {
      postgres = await PostgresCluster.create(root);
      redis = await RedisServer.create(root);
      const nemesis = new Nemesis(root, postgres, redis);
      mkdirSync(nemesis.workspaces, { recursive: true });
      for (const name of names) await nemesis.startWorker(name);
      await nemesis.connect();
      await installAudit(nemesis.db);
      return nemesis;
    } catch (error) {
      await stopAllWorkers();
      await redis?.kill();
      await postgres?.stop();
      throw error;
    }
  }

  private async connect(): Promise<void> {
    await this.db?.end().catch(() => undefined);
    this.db = new pg.Client({ connectionString: this.pg.url });
    this.db.on("error", () => undefined);
    await this.db.connect();
  }

  /** A query on the suite's own connection, reconnecting after a PostgreSQL fault. */
  async query<R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.db.query(sql, params)).rows as R[];
    } catch (error) {
      await this.connect();
      if ((error as { code?: string }).code !== undefined && !/terminat|connection/i.test((error as Error).message)) throw error;
      return (await this.db.query(sql, params)).rows as R[];
    }
  }

  setup(extraEnv?: Record<string, string>): WorkerSetup {
    return { cwd: this.root, db: this.pg.url, redis: this.redis.url, workspaces: this.workspaces, apiKeys: API_KEYS, ...(extraEnv ? { extraEnv } : {}) };
  }

  async startWorker(name: string, extraEnv?: Record<string, string>): Promise<Worker> {
    const worker = await startWorker(name, this.setup(extraEnv));
    this.workers.set(name, worker);
    return worker;
  }

  worker(name: string): Worker {
    const worker = this.workers.get(name);
    if (!worker) throw new Error(`no worker ${name}`);
    return worker;
  }

  /** A fresh user (API key) for a scenario's threads, so that per-user limits of one scenario never touch another. */
  freshKey(): string {
    if (this.nextKey >= USERS) throw new Error("out of nemesis users");
    return keyOf(this.nextKey++);
  }

  async newThread(worker: Worker, key: string): Promise<string> {
    const answer = await this.rec.createThread(worker, { key });
    if (answer.status !== 200 || answer.threadId === undefined) throw new Error(`thread creation answered ${answer.status}: ${JSON.stringify(answer.body ?? answer.error)}`);
    return answer.threadId;
  }

  /** Bounded wait until a run of `threadId` is inside its bash command (a process runs in the thread's workspace). */
  async inCommand(threadId: string, ms = 20_000): Promise<void> {
    await until(async () => processesIn(join(this.workspaces, threadId)).length > 0, `a bash command of thread ${threadId}`, ms, 50);
  }

  /** Hold the thread's runs in their first bash call until `openGate`. */
  closeGate(threadId: string): void {
    mkdirSync(join(this.workspaces, threadId), { recursive: true });
    writeFileSync(join(this.workspaces, threadId, "gate"), "");
  }

  openGate(threadId: string): void {
    try {
      unlinkSync(join(this.workspaces, threadId, "gate"));
    } catch {
      /* already open */
    }
  }

  openAllGates(): void {
    for (const dir of readdirSync(this.workspaces)) this.openGate(dir);
  }

  async storedRun(runId: string): Promise<StoredRun | undefined> {
    const [row] = await this.query<{ run_id: string; thread_id: string; status: string; epoch: number; outcome: string | null }>("select run_id, thread_id, status, epoch, outcome from keel_runs where run_id = $1", [runId]);
    if (!row) return undefined;
    const stopReason = row.outcome ? (JSON.parse(row.outcome) as { primaryStopReason?: string }).primaryStopReason : undefined;
    return { runId: row.run_id, threadId: row.thread_id, status: row.status, epoch: Number(row.epoch), ...(stopReason ? { stopReason } : {}) };
  }

  async waitForStatus(runId: string, statuses: string[], ms = 30_000): Promise<StoredRun> {
    return until(async () => {
      const run = await this.storedRun(runId);
      return run && statuses.includes(run.status) ? run : undefined;
    }, `run ${runId} to be ${statuses.join("|")}`, ms);
  }

  /** Bounded wait until no run of `threadIds` is pending or running (gates opened first). */
  async quiesce(threadIds: string[], ms = 45_000): Promise<void> {
    for (const t of threadIds) this.openGate(t);
    await until(async () => {
      const [row] = await this.query<{ n: string }>("select count(*) as n from keel_runs where thread_id = any($1) and status in ('pending', 'running')", [threadIds]);
      return Number(row!.n) === 0;
    }, `the runs of ${threadIds.length} threads to end`, ms, 200).catch(() => undefined);
  }

  /** Check the scenario's history against the store; prints and keeps its summary line. */
  async check(scenario: string, startedAt: number, options: { purge?: boolean } = {}, history: History = this.rec.forScenario(scenario)): Promise<CheckResult> {
    const threads = [...new Set(history.answers.map((a) => a.threadId).filter((t): t is string => t !== undefined))];
    // `purge: false`: what a deleted thread left in the store is not looked at (a scenario that checks the API's side only).
    const deleted = options.purge === false ? [] : [...new Set(history.answers.filter((a) => a.op === "delete_thread" && a.status !== undefined && a.status < 300).map((a) => a.threadId!))];
    await this.quiesce(threads);
    const view = await readStoreView(this.db, threads, deleted, this.workspaces).catch(async () => {
      await this.connect();
      return readStoreView(this.db, threads, deleted, this.workspaces);
    });
    const result = checkHistory(history, view);
    this.figures.push({ scenario, result, ms: Date.now() - startedAt });
    console.log(`${summaryLine(scenario, result)}; load average ${loadavg()[0]!.toFixed(1)}`);
    const statuses = new Map<string, number>();
    for (const a of history.answers) statuses.set(`${a.op} ${a.status ?? (a.abandoned ? "abandoned" : "no answer")}`, (statuses.get(`${a.op} ${a.status ?? (a.abandoned ? "abandoned" : "no answer")}`) ?? 0) + 1);
    console.log(`  answers: ${[...statuses].map(([k, v]) => `${k} ×${v}`).join(", ")}`);
    const errors = [...new Set(history.answers.filter((a) => a.error !== undefined).map((a) => a.error))].slice(0, 3);
    if (errors.length > 0) console.log(`  client errors: ${errors.join(" | ")}`);
    for (const v of result.violations.slice(0, 20)) console.log(`  ${v.kind}: ${v.message}`);
    return result;
  }

  totalLine(): string {
    const sum = (f: (r: CheckResult["figures"]) => number) => this.figures.reduce((n, s) => n + f(s.result.figures), 0);
    const violations = this.figures.reduce((n, s) => n + s.result.violations.length, 0);
    const seconds = Math.round(this.figures.reduce((n, s) => n + s.ms, 0) / 1000);
    return `nemesis total: scenarios ${this.figures.length}, faults ${sum((f) => f.faults)}, runs ${sum((f) => f.runs)}, answers checked ${sum((f) => f.answers)}, writes checked ${sum((f) => f.writes)}, leases ${sum((f) => f.leases)}, lost ${sum((f) => f.lost)}, violations ${violations}, ${seconds} s in scenarios`;
  }

  /** Stop everything this suite started, by pid: workers, stray commands in the workspaces, Redis, PostgreSQL. */
  async stop(): Promise<void> {
    this.openAllGates();
    await this.db?.end().catch(() => undefined);
    await stopAllWorkers();
    killStrays(this.workspaces);
    await this.redis.kill();
    await this.pg.stop();
    await sleep(100);
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Pids of the processes whose working directory is inside `dir` (a run's bash command runs in its thread's workspace). */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) found.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/**
 * Processes whose working directory is inside `dir` (a bash command of a killed worker
 * lives on: issue item 3) are SIGKILLed by pid.
 */
export function killStrays(dir: string): number[] {
  const killed: number[] = [];
  for (const pid of processesIn(dir)) {
    try {
      process.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      /* gone */
    }
  }
  return killed;
}
