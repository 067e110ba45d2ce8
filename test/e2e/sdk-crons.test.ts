/**
 * Crons against a real `keel serve` process on SQLite, driven by `@langchain/langgraph-sdk`:
 * `/info` says `crons: true`, crons persist across a restart, another user gets 404, and a
 * cron whose ticks were missed while the server was down (its `next_run_at` set an hour
 * back in the file, as a stopped server would leave it) fires once when the server is back —
 * an ordinary run on its thread, tagged with the cron — then goes on from the next minute.
 */
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, tempDir, type ServeProcess } from "./serve-process.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => { prepare(sql: string): { run(...params: unknown[]): { changes: number } }; close(): void };
const MINUTE = 60_000;

describe("crons on keel serve (SQLite) with @langchain/langgraph-sdk", () => {
  let dir: string;
  let dbPath: string;
  let server: ServeProcess | undefined;
  const clients = (url: string) => ({
    alice: new Client({ apiUrl: url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } }),
    bob: new Client({ apiUrl: url, apiKey: "key-bob", callerOptions: { maxRetries: 0 } }),
  });
  const serve = () =>
    startServe(["--port", "0", "--db", `sqlite:${dbPath}`], { cwd: dir, env: { KEEL_API_KEYS: "key-alice:alice,key-bob:bob" } });

  beforeAll(async () => {
    dir = tempDir("keel-e2e-crons-");
    dbPath = join(dir, "db", "keel.db");
    server = await serve();
  }, 40_000);

  afterAll(async () => {
    await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let thread: { thread_id: string };
  let cron: { cron_id: string };
  let stateless: { cron_id: string };

  it("serves the crons API: /info says crons: true, crons are the creator's (404 for another user)", async () => {
    const info = (await (await fetch(`${server!.url}/info`)).json()) as { flags: { crons: boolean } };
    expect(info.flags.crons).toBe(true);

    const { alice, bob } = clients(server!.url);
    thread = await alice.threads.create();
    cron = await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "* * * * *", input: { messages: [{ role: "user", content: "Hello from cron" }] }, metadata: { e2e: "crons" } });
    stateless = await alice.crons.create("lead", { schedule: "0 0 1 1 *", onRunCompleted: "keep" });
    expect(cron).toMatchObject({ thread_id: thread.thread_id, user_id: "alice", schedule: "* * * * *", enabled: true });
    expect(await alice.crons.count()).toBe(2);
    await expect(bob.crons.update(cron.cron_id, { enabled: false })).rejects.toMatchObject({ status: 404 });
    expect(await bob.crons.search()).toEqual([]);
    // Keep it from firing while the server is still up.
    await alice.crons.update(cron.cron_id, { enabled: false });
  });

  it("keeps crons across a restart and fires an hour of missed ticks once when the server is back", async () => {
    const stopped = await server!.stop("SIGTERM");
    expect(stopped.code).toBe(0);
    server = undefined;
    // As if the server had been down for an hour with the cron on.
    const db = new Database(dbPath);
    const hourAgo = new Date(Date.now() - 60 * MINUTE).toISOString();
    expect(db.prepare("update keel_crons set enabled = 1, next_run_at = ? where cron_id = ?").run(hourAgo, cron.cron_id).changes).toBe(1);
    db.close();

    const restartedAt = Date.now();
    server = await serve();
    const again = clients(server.url).alice;
    const found = await again.crons.search({ sortBy: "cron_id", sortOrder: "asc" });
    expect(found.map((c) => c.cron_id).sort()).toEqual([cron.cron_id, stateless.cron_id].sort());

    let runs = await again.runs.list(thread.thread_id);
    for (let i = 0; i < 200 && runs.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      runs = await again.runs.list(thread.thread_id);
    }
    expect(runs.length).toBeGreaterThan(0);
    const fired = runs.at(-1)!;
    // Stamped as a run made through the routes: the system assistant's metadata, graph_id, assistant_id (cron-fire stamps).
    expect(fired.metadata).toMatchObject({ e2e: "crons", cron_id: cron.cron_id, created_by: "system", graph_id: "lead", assistant_id: "lead" });
    expect((await again.threads.search({ metadata: { graph_id: "lead" } })).map((t) => t.thread_id)).toContain(thread.thread_id);
    const done = await again.runs.join(thread.thread_id, fired.run_id);
    expect(done).toBeDefined();
    expect((await again.runs.get(thread.thread_id, fired.run_id)).status).toBe("success");

    const [after] = await again.crons.search({ threadId: thread.thread_id });
    const checkedAt = Date.now();
    const next = Date.parse(after!.next_run_date!);
    expect(next).toBeGreaterThan(restartedAt);
    expect(next).toBeLessThanOrEqual(checkedAt + MINUTE);
    // The hour of missed ticks fired once; only minutes that began since the restart may add one each.
    const minutesCrossed = Math.floor(checkedAt / MINUTE) - Math.floor(restartedAt / MINUTE);
    expect((await again.runs.list(thread.thread_id)).length).toBeLessThanOrEqual(1 + minutesCrossed);
    expect((await again.runs.list(thread.thread_id)).length).toBeGreaterThanOrEqual(1);

    await again.crons.delete(cron.cron_id);
    await again.crons.delete(stateless.cron_id);
    expect(await again.crons.count()).toBe(0);
  }, 45_000);
});
