/**
 * A redis-server of the test's own (its own port, no persistence), so a test can FLUSHALL,
 * kill and restart it without touching the shared Redis other suites use. Null with the
 * reason when `redis-server` is not installed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";

export function redisServerMissing(): string | null {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  return probe.error ? `redis-server is not installed (${probe.error.message})` : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const server = new PrivateRedis(await freePort());
    await server.restart();
    return server;
  }

  /** Start (again) on the same port, empty; resolves once it answers PING (bounded: 100 tries). */
  async restart(): Promise<void> {
    this.child = spawn("redis-server", ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => undefined);
    try {
      for (let i = 0; i < 100; i++) {
        try {
          if (client.status !== "ready") await client.connect();
          if ((await client.ping()) === "PONG") return;
        } catch {
          client.disconnect();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      throw new Error(`redis-server on port ${this.port} did not answer`);
    } finally {
      client.disconnect();
    }
  }

  /** SIGKILL the server (what a crash does); resolves once it exited. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
}
