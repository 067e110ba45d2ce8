/**
 * The suite's own PostgreSQL cluster and Redis server, on private loopback ports, under a
 * temp directory. Every process is started here and stopped by its pid (`stopAll`).
 *
 * PostgreSQL: `initdb` + `pg_ctl start` from the newest /usr/lib/postgresql/<version>/bin (or `KEEL_NEMESIS_PG_BIN`);
 * initdb refuses root, so as root the cluster runs as the `postgres` user. Trust auth on
 * loopback, one superuser `keel`, database `nemesis`, fsync off (a test cluster).
 * Redis: `redis-server` as a child of this process, no persistence: a restart is empty.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";

/** `KEEL_NEMESIS_PG_BIN`, else the newest /usr/lib/postgresql/<version>/bin that has initdb (Debian's layout). */
const PG_BIN = process.env.KEEL_NEMESIS_PG_BIN ?? newestPostgresBin() ?? "/usr/lib/postgresql/15/bin";

function newestPostgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], "bin");
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `check` every `everyMs` until it returns a truthy value; bounded by `ms`. */
export async function until<T>(check: () => Promise<T | undefined | false | null>, what: string, ms = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await sleep(50);
  }
  return !pidAlive(pid);
}

/** Why this machine cannot run the suite's PostgreSQL cluster, or null. */
export function postgresClusterUnavailable(): string | null {
  if (!existsSync(join(PG_BIN, "initdb"))) return `no initdb at ${PG_BIN} (set KEEL_NEMESIS_PG_BIN)`;
  if (spawnSync("redis-server", ["--version"]).status !== 0) return "no redis-server on PATH";
  return null;
}

export class PostgresCluster {
  readonly port: number;
  readonly dataDir: string;
  readonly socketDir: string;
  private readonly runAs: { uid: number; gid: number } | undefined;
  postmasterPid: number | undefined;

  private constructor(readonly root: string, port: number) {
    this.port = port;
    this.dataDir = join(root, "pgdata");
    this.socketDir = join(root, "pgsock");
    if (process.getuid?.() === 0) {
      const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
      const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
      if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root and no `postgres` user to run initdb as");
      this.runAs = { uid, gid };
    }
  }

  get url(): string {
    return `postgres://keel@127.0.0.1:${this.port}/nemesis`;
  }

  static async create(root: string): Promise<PostgresCluster> {
    const cluster = new PostgresCluster(root, await freePort());
    mkdirSync(cluster.socketDir, { recursive: true });
    if (cluster.runAs) {
      chownSync(root, cluster.runAs.uid, cluster.runAs.gid);
      chownSync(cluster.socketDir, cluster.runAs.uid, cluster.runAs.gid);
    }
    cluster.runSync("initdb", ["-D", cluster.dataDir, "-U", "keel", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
    await cluster.start();
    const admin = new pg.Client({ connectionString: `postgres://keel@127.0.0.1:${cluster.port}/postgres` });
    await admin.connect();
    await admin.query("create database nemesis");
    await admin.end();
    return cluster;
  }

  private runSync(tool: string, args: string[]): string {
    const result = spawnSync(join(PG_BIN, tool), args, { encoding: "utf8", ...(this.runAs ?? {}), cwd: this.root });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
    return result.stdout;
  }

  /** `pg_ctl start -w` (pg_ctl exits once the server accepts connections); the postmaster's pid is read from postmaster.pid. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    this.runSync("pg_ctl", ["-D", this.dataDir, "-o", options, "-l", join(this.root, "postgres.log"), "-w", "-t", "60", "start"]);
    this.postmasterPid = Number(readFileSync(join(this.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  }

  /** Fast shutdown (SIGINT to the postmaster, by pid), waiting until it is gone. */
  async stop(): Promise<void> {
    const pid = this.postmasterPid;
    if (pid === undefined || !pidAlive(pid)) return;
    process.kill(pid, "SIGINT");
    if (!(await waitGone(pid, 30_000))) process.kill(pid, "SIGKILL");
    await waitGone(pid, 5_000);
    this.postmasterPid = undefined;
  }

  /** `pg_terminate_backend` of every client session of the `nemesis` database but this one (not autovacuum workers, which only a superuser may signal). */
  async terminateBackends(): Promise<number> {
    return this.withClient(async (client) => {
      const result = await client.query("select count(*) filter (where pg_terminate_backend(pid)) as n from pg_stat_activity where datname = 'nemesis' and backend_type = 'client backend' and usename = current_user and pid <> pg_backend_pid()");
      return Number(result.rows[0].n);
    });
  }

  async withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("error", () => undefined);
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export class RedisServer {
  child: ChildProcess | undefined;
  private constructor(readonly port: number, private readonly logPath: string) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(root: string): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), join(root, "redis.log"));
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    this.child = spawn("redis-server", ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--logfile", this.logPath], { stdio: "ignore" });
    await until(async () => (await this.command(["PING"])) === "PONG", "redis-server to answer PING", 15_000);
  }

  /** SIGKILL by pid (no persistence: the next start is empty). */
  async kill(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || !pidAlive(pid)) return;
    process.kill(pid, "SIGKILL");
    await waitGone(pid, 10_000);
    this.child = undefined;
  }

  async command(args: string[]): Promise<unknown> {
    const redis = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
    redis.on("error", () => undefined);
    try {
      await redis.connect();
      return await redis.call(args[0]!, ...args.slice(1));
    } finally {
      redis.disconnect();
    }
  }

  /** Write refusal: `maxmemory 1` + `noeviction` (every write answers OOM); `allowWrites` undoes it. */
  async refuseWrites(): Promise<void> {
    await this.command(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    await this.command(["CONFIG", "SET", "maxmemory", "1"]);
  }

  async allowWrites(): Promise<void> {
    await this.command(["CONFIG", "SET", "maxmemory", "0"]);
  }
}
