import { mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { PG_URL, REDIS_URL, servicesUnavailable } from "./services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

const unavailable = await servicesUnavailable();

/**
 * Two `keel serve` workers on one PostgreSQL and one Redis (ARCHITECTURE §8). Worker A's
 * model hangs on its first call (so a run it owns never ends by itself); worker B's runs
 * take a few real steps, and block in their first bash call while the thread's
 * workspace (shared: both workers run in one directory) holds a file `hold`.
 * Small lease timings (test-only env) make a dead worker's lease expire in ~3 s. (A live
 * worker gives its lease up locally when a renewal has not come through by TTL − margin;
 * a 1.5 s TTL was within reach of a heartbeat delayed by a loaded 2-core machine.)
 */
describe.skipIf(unavailable !== null)("two gateway workers on PostgreSQL and Redis", () => {
  // A user of its own per test run: the database is shared, and the per-user run limit counts every thread of a user.
  const user = `mp-${process.pid}-${Date.now()}`;
  const KEY = { "x-api-key": "key-mp", "content-type": "application/json" };
  let dir: string;
  let a: ServeProcess;
  let b: ServeProcess;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-mp-");
    const env = { KEEL_API_KEYS: `key-mp:${user}`, KEEL_LEASE_TTL_MS: "3000", KEEL_HEARTBEAT_MS: "300", KEEL_REAPER_MS: "300" };
    // One workspaces directory for both workers: they serve the same threads.
    // A database of its own: every worker claims any pending run of its database (the claim queue).
    database = await scratchDatabase(PG_URL, "keel_e2e_mp");
    const common = ["--port", "0", "--db", database.url, "--redis", REDIS_URL, "--workspaces", join(dir, "workspaces")];
    // One after the other: each runs the schema migrations at start.
    a = await startServe([...common, "--model", `scripted:${join(FIXTURES, "hang.scenario.json")}`], { cwd: dir, env });
    b = await startServe([...common, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], { cwd: dir, env });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop("SIGTERM"), b?.stop("SIGTERM")]);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const holdPath = (threadId: string) => join(dir, "workspaces", threadId, "hold");
  const hold = (threadId: string) => {
    mkdirSync(join(dir, "workspaces", threadId), { recursive: true });
    writeFileSync(holdPath(threadId), "");
  };
  const newThread = async (base: string) => ((await (await fetch(`${base}/threads`, { method: "POST", headers: KEY, body: "{}" })).json()) as { thread_id: string }).thread_id;
  const getRun = async (base: string, threadId: string, runId: string) =>
    (await (await fetch(`${base}/threads/${threadId}/runs/${runId}`, { headers: KEY })).json()) as { status: string; outcome?: { status: string; primaryStopReason?: string; stopReasons: { reason: string }[] } };
  async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const value = await check();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("admits exactly one of 50 concurrent run creations on one thread, across both workers", async () => {
    const threadId = await newThread(a.url);
    hold(threadId);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${(i % 2 === 0 ? a : b).url}/threads/${threadId}/runs`, { method: "POST", headers: KEY, body: JSON.stringify({ assistant_id: "lead", input: `attempt ${i}` }) }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { run_id?: string; error?: string },
        })),
      ),
    );
    const admitted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 409);
    expect(admitted).toHaveLength(1);
    expect(refused).toHaveLength(49);
    expect(refused.every((r) => r.body.error === "KEEL_ERR_HTTP_RUN_ACTIVE")).toBe(true);

    const runs = (await (await fetch(`${b.url}/threads/${threadId}/runs?limit=100`, { headers: KEY })).json()) as { run_id: string }[];
    expect(runs.map((r) => r.run_id)).toEqual([admitted[0]!.body.run_id]);
    // Cancel it from whichever worker does not own it half the time: a control message crosses workers.
    const cancel = await fetch(`${b.url}/threads/${threadId}/runs/${admitted[0]!.body.run_id}/cancel?wait=1`, { method: "POST", headers: { "x-api-key": "key-mp" } });
    expect(cancel.status).toBe(204);
    expect((await getRun(a.url, threadId, admitted[0]!.body.run_id!)).status).toBe("interrupted");
  });

  it("joins from one worker a stream started on the other", async () => {
    const threadId = await newThread(b.url);
    hold(threadId);
    const onB = new Client({ apiUrl: b.url, apiKey: "key-mp", callerOptions: { maxRetries: 0 } });
    const onA = new Client({ apiUrl: a.url, apiKey: "key-mp", callerOptions: { maxRetries: 0 } });
    let runId: string | undefined;
    const started: { id?: string; event: string }[] = [];
    const streaming = (async () => {
      for await (const part of onB.runs.stream(threadId, "lead", { input: "Write a note.", onRunCreated: (meta) => (runId = meta.run_id) })) started.push(part as { id?: string; event: string });
    })();
    await until(async () => runId !== undefined && (await getRun(a.url, threadId, runId)).status === "running", "the run to run on worker B");
    const joined: { id?: string; event: string }[] = [];
    const joining = (async () => {
      for await (const part of onA.runs.joinStream(threadId, runId!)) joined.push(part as { id?: string; event: string });
    })();
    await until(async () => joined.length > 0, "the join on worker A to replay the first events");
    unlinkSync(holdPath(threadId));
    await Promise.all([streaming, joining]);
    expect(started.at(-1)!.event).toBe("end");
    expect(joined.map((p) => p.id)).toEqual(started.map((p) => p.id));
    expect(joined.map((p) => p.event)).toEqual(started.map((p) => p.event));
    expect((await getRun(a.url, threadId, runId!)).status).toBe("success");
  });

  it("marks a run lease_expired when its worker is killed; nothing reports it as a success", async () => {
    const threadId = await newThread(a.url);
    const created = await fetch(`${a.url}/threads/${threadId}/runs`, { method: "POST", headers: KEY, body: JSON.stringify({ assistant_id: "lead", input: "Hang." }) });
    expect(created.status).toBe(200);
    const runId = ((await created.json()) as { run_id: string }).run_id;
    await until(async () => (await getRun(b.url, threadId, runId)).status === "running", "the run to run on worker A");

    // Waiters on the surviving worker: a join and a stream.
    const joined = fetch(`${b.url}/threads/${threadId}/runs/${runId}/join`, { headers: KEY }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    const events = fetch(`${b.url}/threads/${threadId}/runs/${runId}/stream`, { headers: KEY }).then((r) => r.text());

    const exit = await a.stop("SIGKILL");
    expect(exit.signal).toBe("SIGKILL");

    const reaped = await until(async () => {
      const run = await getRun(b.url, threadId, runId);
      return run.status !== "running" && run;
    }, "the reaper on worker B");
    expect(reaped.status).toBe("error");
    expect(reaped.outcome?.status).toBe("failed");
    expect(reaped.outcome?.primaryStopReason).toBe("lease_expired");

    const join = await joined;
    expect(join.status).toBe(200);
    expect(join.body.__error__).toMatchObject({ error: "lease_expired" });
    const stream = await events;
    expect(stream).toContain("event: error");
    expect(stream.trimEnd().split("\n\n").at(-1)).toMatch(/^event: end\n/);
    const thread = (await (await fetch(`${b.url}/threads/${threadId}`, { headers: KEY })).json()) as { status: string };
    expect(thread.status).toBe("error");
  });
});
