import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../e2e/serve-process.js";
import type { Answer, CheckResult } from "./history.js";
import { killStrays, Nemesis } from "./harness.js";
import { postgresClusterUnavailable, sleep, until } from "./services.js";
import { LEASE, type Worker } from "./workers.js";

/**
 * The nemesis suite (test/nemesis/README.md): three `keel serve` workers on the suite's own
 * PostgreSQL and Redis, faults injected by the suite, every answer recorded and checked
 * against the store at the end of each scenario (history.ts). Scenarios run in order on one
 * cluster; each uses users and threads of its own.
 */
const unavailable = postgresClusterUnavailable();
if (unavailable !== null && process.env.CI === "true") throw new Error(`${unavailable} — CI=true, so this is a failure (.ci/run installs PostgreSQL and Redis)`);
if (unavailable !== null) console.warn(`skipping the nemesis suite: ${unavailable}`);

/**
 * The test-only switch that turns fencing off (issue item 2). The negative control runs
 * once `keel serve --help` or the run service's README documents it.
 */
const NO_FENCING_ENV = "KEEL_TEST_UNSAFE_NO_FENCING";
function noFencingSupported(): boolean {
  const help = spawnSync(process.execPath, [BIN, "serve", "--help"], { encoding: "utf8" });
  const docs = ["kernel/runs/README.md", "tools/serve/README.md"].map((p) => join(import.meta.dirname, "..", "..", p)).filter(existsSync);
  return `${help.stdout}${help.stderr}`.includes(NO_FENCING_ENV) || docs.some((p) => readFileSync(p, "utf8").includes(NO_FENCING_ENV));
}

const TERMINAL = ["success", "error", "timeout", "interrupted"];

/**
 * A scenario that waits for another item of the issue: skipped (with its `// pending:`
 * comment) unless KEEL_NEMESIS_PENDING=1, which runs them all to see which pass now.
 */
const pending = process.env.KEEL_NEMESIS_PENDING === "1" ? it : it.skip;

describe.skipIf(unavailable !== null)("nemesis: faults on real workers, PostgreSQL and Redis", () => {
  let n: Nemesis;
  let A: Worker;
  let B: Worker;
  let C: Worker;

  beforeAll(async () => {
    n = await Nemesis.start(["A", "B", "C"]);
    [A, B, C] = ["A", "B", "C"].map((name) => n.worker(name));
  }, 120_000);

  afterAll(async () => {
    if (!n) return;
    for (const f of n.figures) console.log(`nemesis ${f.scenario}: ${Math.round(f.ms / 100) / 10} s`);
    console.log(n.totalLine());
    await n.stop();
  }, 120_000);

  /** Run one scenario's body as `name`, then check its history against the store. */
  async function scenario(name: string, body: () => Promise<void>, options: { purge?: boolean } = {}): Promise<CheckResult> {
    n.rec.scenario = name;
    const startedAt = Date.now();
    let failure: unknown;
    await body().catch((error: unknown) => (failure = error));
    // Checked (and its figures printed) even when the body failed: the history says why.
    const result = await n.check(name, startedAt, options);
    // A failed body may have left a worker dead or paused: the next scenario gets all three.
    for (const workerName of ["A", "B", "C"]) {
      const w = n.worker(workerName);
      if (w.paused) w.kill("SIGCONT");
      if (!w.alive) await restart(workerName);
    }
    if (failure !== undefined) throw failure;
    return result;
  }

  /** Workers that exited (a database or Redis fault must not end one), with their exit and last stderr. */
  const exited = () =>
    [A, B, C].filter((w) => !w.alive).map((w) => `${w.name} exited ${w.process.child.exitCode ?? w.process.child.signalCode}: ${w.process.output().stderr.trim().split("\n").slice(-3).join(" | ")}`);
  const expectClean = (result: CheckResult) => expect(result.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
  const errorOf = (a: Answer) => (a.body as { __error__?: { error: string } } | undefined)?.__error__;

  async function runningRun(worker: Worker, threadId: string, body: Record<string, unknown> = {}): Promise<string> {
    const created = await n.rec.createRun(worker, threadId, body);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await n.waitForStatus(created.runId!, ["running"]);
    return created.runId!;
  }

  /** Restart a worker after a fault that ended it (same name: later answers are its). */
  async function restart(name: string): Promise<Worker> {
    const worker = await n.startWorker(name);
    if (name === "A") A = worker;
    if (name === "B") B = worker;
    if (name === "C") C = worker;
    return worker;
  }

  /**
   * 24 runs on 12 threads over 3 workers without faults, the first 12 held in their bash call
   * past the lease TTL (only heartbeats keep them). Returns the runs' stored outcomes.
   */
  async function controlRuns(): Promise<{ answers: Answer[]; runs: { status: string; outcome: string }[] }> {
    const keys = [n.freshKey(), n.freshKey(), n.freshKey()];
    const workers = [A, B, C];
    const threads = await Promise.all(Array.from({ length: 12 }, (_, i) => n.newThread(workers[i % 3]!, keys[i % 3]!)));
    for (const t of threads) n.closeGate(t);
    const first = await Promise.all([Promise.all(threads.map((t, i) => n.rec.wait(workers[i % 3]!, t))), sleep(LEASE.ttlMs + 1_500).then(() => threads.forEach((t) => n.openGate(t)))]);
    const second = await Promise.all(threads.map((t, i) => n.rec.wait(workers[(i + 1) % 3]!, t)));
    const runs = await n.query<{ status: string; outcome: string }>("select status, outcome from keel_runs where thread_id = any($1)", [threads]);
    const expired = runs.filter((r) => r.outcome.includes("lease_expired"));
    if (expired.length > 0) {
      const lines = [A, B, C].flatMap((w) => `${w.process.output().stdout}\n${w.process.output().stderr}`.split("\n").filter((l) => /lease|heartbeat|outside the executor/i.test(l)).map((l) => `${w.name}: ${l}`));
      console.log(`false lease expiries: ${expired.length} of ${runs.length}\n${lines.slice(-10).join("\n")}`);
    }
    return { answers: [...first[0], ...second], runs };
  }

  it("control: 24 runs on 3 workers without faults, the first 12 held past the TTL; every one answered and stored as answered", async () => {
    const result = await scenario("control", async () => {
      const { answers, runs } = await controlRuns();
      expect(runs).toHaveLength(24);
      expect(answers.map((a) => a.status)).toEqual(Array(24).fill(200));
      expect(runs.every((r) => TERMINAL.includes(r.status))).toBe(true);
    });
    expectClean(result);
    expect(result.figures.leases).toBe(24);
  });

  // Was pending (3 of 6 runs had 1–3 false lease expiries): a SUBSCRIBE written during the Redis
  // control connection's handshake made ioredis refuse its ready check and reject the queued
  // SUBSCRIBEs ("Connection in subscriber mode…"); the control channel now waits for the handshake.
  it("control: no lease expires falsely on a loaded 2-core machine (all 24 runs succeed)", async () => {
    const result = await scenario("control-no-false-expiry", async () => {
      const { answers, runs } = await controlRuns();
      expect(runs.filter((r) => r.outcome.includes("lease_expired"))).toEqual([]);
      expect(runs.map((r) => r.status)).toEqual(Array(24).fill("success"));
      for (const answer of answers) expect(errorOf(answer)).toBeUndefined();
    });
    expectClean(result);
  });

  it("SIGKILL of the owner mid-tool-call: the reaper marks its run lease_expired, waiters elsewhere are answered, the next owner sees its files", async () => {
    const result = await scenario("sigkill-owner", async () => {
      const key = n.freshKey();
      const t = await n.newThread(A, key);
      const before = await n.rec.wait(A, t);
      expect(before.status).toBe(200);
      n.closeGate(t);
      const runId = await runningRun(A, t);
      await n.inCommand(t); // in its bash call, at the gate
      const joined = n.rec.join(B, t, runId);
      const streamed = n.rec.stream(C, t, runId);
      await sleep(300);
      const lift = n.rec.fault("worker_kill", "A");
      expect((await A.stop("SIGKILL")).signal).toBe("SIGKILL");
      const reaped = await n.waitForStatus(runId, TERMINAL, 25_000);
      expect(reaped.status).toBe("error");
      expect(reaped.stopReason).toBe("lease_expired");
      const join = await joined;
      expect(join.status).toBe(200);
      expect(errorOf(join)?.error).toBe("lease_expired");
      const stream = await streamed;
      expect(stream.events?.map((e) => e.event)).toContain("error");
      expect(stream.events?.at(-1)?.event).toBe("end");
      killStrays(join_(n.workspaces, t)); // the dead worker's command (its watchdog is issue item 3)
      await restart("A");
      lift();
      n.openGate(t);
      const after = await n.rec.wait(B, t);
      expect(after.status).toBe(200);
      expect(errorOf(after)).toBeUndefined();
      // One shared workspaces directory: B appended to the file A's first run wrote.
      expect(readFileSync(join_(n.workspaces, t, "trace.txt"), "utf8").trim().split("\n")).toEqual(["passed", "passed"]);
    });
    expectClean(result);
  });

  // Was pending on issue item 3 (a command's watchdog kills its group when its worker dies)
  it("SIGKILL of the owner mid-tool-call: its bash command writes nothing into the workspace after the reaper marked the run", async () => {
    const result = await scenario("sigkill-command", async () => {
      const t = await n.newThread(B, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(A, t);
      await n.inCommand(t);
      const lift = n.rec.fault("worker_kill", "A");
      await A.stop("SIGKILL");
      await n.waitForStatus(runId, TERMINAL, 25_000);
      n.openGate(t);
      await sleep(2_000);
      await restart("A");
      lift();
      expect(existsSync(join_(n.workspaces, t, "trace.txt"))).toBe(false);
    });
    expectClean(result);
  });

  it("SIGSTOP of the owner past the TTL, then SIGCONT: the run is reaped, the resumed worker's writes are fenced, it serves on", async () => {
    const result = await scenario("sigstop-owner", async () => {
      const t = await n.newThread(A, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(A, t);
      await n.inCommand(t);
      const joined = n.rec.join(B, t, runId);
      const lift = n.rec.fault("worker_pause", "A");
      A.kill("SIGSTOP");
      const reaped = await n.waitForStatus(runId, TERMINAL, 25_000);
      expect(reaped.stopReason).toBe("lease_expired");
      n.openGate(t);
      await sleep(500);
      A.kill("SIGCONT");
      lift();
      await sleep(3_000); // the resumed worker goes on with its run: its writes must be refused
      const join = await joined;
      expect(join.status).toBe(200);
      expect(errorOf(join)?.error).toBe("lease_expired");
      expect((await fetch(`${A.url}/ok`)).status).toBe(200);
      expect((await n.storedRun(runId))?.status).toBe("error");
      const next = await n.rec.wait(A, t);
      expect(next.status).toBe(200);
      expect(errorOf(next)).toBeUndefined();
    });
    expectClean(result);
    expect(result.figures.writes).toBeGreaterThan(0);
  });

  // Was pending on issue item 6 (pending runs of a worker that shut down are claimed by any live worker)
  it("SIGTERM with running and pending runs: in-grace runs finish and their waiters are answered, the rest end interrupted, pending runs start elsewhere", async () => {
    const result = await scenario("sigterm-owner", async () => {
      const key = n.freshKey();
      const [t1, t2] = [await n.newThread(C, key), await n.newThread(C, key)];
      n.closeGate(t1);
      n.closeGate(t2);
      const r1 = await runningRun(C, t1);
      const pending = await n.rec.createRun(C, t1, { multitask_strategy: "enqueue" });
      expect(pending.status).toBe(200);
      const waited = n.rec.wait(C, t2);
      await until(async () => (await n.query("select 1 from keel_runs where thread_id = $1 and status = 'running'", [t2])).length > 0, "t2's run to run");
      const lift = n.rec.fault("worker_term", "C");
      const stopping = C.stop("SIGTERM");
      await sleep(1_000);
      n.openGate(t2); // finishes within the grace period
      const exit = await stopping;
      lift();
      expect(exit.code).toBe(0);
      const wait = await waited;
      expect(wait.status).toBe(200);
      expect(errorOf(wait)).toBeUndefined();
      expect((await n.storedRun(r1))?.status).toBe("interrupted");
      n.openGate(t1);
      expect((await n.waitForStatus(pending.runId!, TERMINAL, 30_000)).status).toBe("success");
      await restart("C");
    });
    expectClean(result);
  });

  it("SIGTERM with a running run: the worker exits 0 after its grace period and the run ends interrupted, answered to its waiter", async () => {
    const result = await scenario("sigterm-running", async () => {
      const t = await n.newThread(C, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(C, t);
      const joined = n.rec.join(B, t, runId);
      const lift = n.rec.fault("worker_term", "C");
      const exit = await C.stop("SIGTERM");
      lift();
      expect(exit.code).toBe(0);
      expect((await n.storedRun(runId))?.status).toBe("interrupted");
      const join = await joined;
      expect(join.status).toBe(200);
      await restart("C");
    });
    expectClean(result);
  });

  // Was pending (a stream on C closed without `end`, last event `updates`): the SSE route closed a
  // stream whose Redis XREAD failed; now the reader subscribes again after its last event, goes on
  // after a `gap`, and closes from the run's record when nothing more comes (kernel/runs/follow-run.ts).
  it("Redis SIGKILL and an empty restart while runs are in flight: runs end honestly, every waiter gets an answer", async () => {
    const result = await scenario("redis-restart", async () => {
      const key = n.freshKey();
      const threads = [await n.newThread(A, key), await n.newThread(B, key)];
      for (const t of threads) n.closeGate(t);
      const runIds = [await runningRun(A, threads[0]!), await runningRun(B, threads[1]!)];
      const waiters = [n.rec.join(B, threads[0]!, runIds[0]!), n.rec.stream(C, threads[1]!, runIds[1]!)];
      await sleep(500);
      const lift = n.rec.fault("redis_kill", "redis");
      await n.redis.kill();
      await sleep(1_500);
      await n.redis.start();
      lift();
      for (const t of threads) n.openGate(t);
      for (const runId of runIds) await n.waitForStatus(runId, TERMINAL, 30_000);
      await Promise.all(waiters);
      expect(exited()).toEqual([]);
      const after = await n.rec.wait(C, threads[0]!);
      expect(after.status).toBe(200);
    });
    expectClean(result);
  });

  // Was pending on issue item 4 (a recovery sweep publishes the final events the refusing Redis did not take)
  it("Redis refusing writes (maxmemory 1, noeviction) while runs finish: records are terminal, waiters answered once writes are allowed again", async () => {
    const result = await scenario("redis-refuse", async () => {
      const t = await n.newThread(A, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(A, t);
      const waiters = [n.rec.join(B, t, runId), n.rec.stream(C, t, runId)];
      await sleep(500);
      const lift = n.rec.fault("redis_refuse", "redis");
      await n.redis.refuseWrites();
      n.openGate(t);
      await sleep(3_000);
      await n.redis.allowWrites();
      lift();
      await n.waitForStatus(runId, TERMINAL, 30_000);
      const [join] = await Promise.all(waiters);
      expect(join!.status).toBe(200);
    });
    expectClean(result);
  });

  it("PostgreSQL stop and start while runs are in flight: no worker exits, runs end honestly, new runs work", async () => {
    const result = await scenario("pg-restart", async () => {
      const t = await n.newThread(A, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(A, t);
      const joined = n.rec.join(B, t, runId);
      const lift = n.rec.fault("pg_stop", "postgres");
      await n.pg.stop();
      await sleep(3_000);
      await n.pg.start();
      lift();
      n.openGate(t);
      await n.waitForStatus(runId, TERMINAL, 40_000);
      await joined;
      expect(exited()).toEqual([]);
      const after = await n.rec.wait(B, t);
      expect(after.status).toBe(200);
    });
    expectClean(result);
  });

  // Was pending on issue item 1 (a dropped session reconnects; the worker stays up)
  it("pg_terminate_backend of every session while runs are in flight: no worker exits, runs end honestly, new runs work", async () => {
    const result = await scenario("pg-terminate", async () => {
      const key = n.freshKey();
      const threads = [await n.newThread(A, key), await n.newThread(B, key)];
      for (const t of threads) n.closeGate(t);
      const runIds = [await runningRun(A, threads[0]!), await runningRun(B, threads[1]!)];
      const waiters = runIds.map((runId, i) => n.rec.join(C, threads[i]!, runId));
      for (let i = 0; i < 3; i++) {
        const lift = n.rec.fault("pg_terminate", "postgres");
        await n.pg.terminateBackends();
        lift();
        await sleep(500);
      }
      for (const t of threads) n.openGate(t);
      for (const runId of runIds) await n.waitForStatus(runId, TERMINAL, 30_000);
      await Promise.all(waiters);
      expect(exited()).toEqual([]);
      const after = await n.rec.wait(C, threads[1]!);
      expect(after.status).toBe(200);
    });
    expectClean(result);
  });

  it("client disconnects: on_disconnect cancel interrupts the run, continue lets it finish", async () => {
    const result = await scenario("client-disconnect", async () => {
      const key = n.freshKey();
      const [t1, t2, t3] = [await n.newThread(A, key), await n.newThread(B, key), await n.newThread(C, key)];
      for (const t of [t1, t2, t3]) n.closeGate(t!);
      for (const target of ["A", "B", "C"]) n.rec.fault("client_disconnect", target)(); // recorded for the figures; excuses nothing
      const answers = await Promise.all([
        n.rec.wait(A, t1!, { on_disconnect: "cancel" }, { abandonAfterMs: 1_500 }),
        n.rec.wait(B, t2!, { on_disconnect: "continue" }, { abandonAfterMs: 1_500 }),
        n.rec.streamRun(C, t3!, { on_disconnect: "cancel" }, { abandonAfterMs: 1_500 }),
      ]);
      expect(answers.map((a) => a.abandoned)).toEqual([true, true, true]);
      const runOf = async (t: string) => (await n.query<{ run_id: string }>("select run_id from keel_runs where thread_id = $1", [t]))[0]!.run_id;
      expect((await n.waitForStatus(await runOf(t1!), TERMINAL, 15_000)).status).toBe("interrupted");
      expect((await n.waitForStatus(await runOf(t3!), TERMINAL, 15_000)).status).toBe("interrupted");
      n.openGate(t2!);
      expect((await n.waitForStatus(await runOf(t2!), TERMINAL, 20_000)).status).toBe("success");
    });
    expectClean(result);
  });

  let deletedThread: string | undefined;
  /** A thread with a running run, then 20 run creations on three workers with a DELETE in their midst. */
  async function deleteRace(): Promise<void> {
    const t = await n.newThread(A, n.freshKey());
    n.closeGate(t);
    const runId = await runningRun(A, t);
    const creations: Promise<Answer>[] = [];
    let deleted: Promise<Answer> | undefined;
    for (let i = 0; i < 20; i++) {
      creations.push(n.rec.createRun([A, B, C][i % 3]!, t, { multitask_strategy: "enqueue" }));
      if (i === 10) {
        n.rec.fault("delete_race", "B")();
        deleted = n.rec.deleteThread(B, t);
      }
      await sleep(25);
    }
    await Promise.all(creations);
    const deletion = await deleted!;
    expect([200, 202, 204]).toContain(deletion.status);
    for (const w of [A, B, C]) {
      expect((await n.rec.readThread(w, t)).status).toBe(404);
      expect((await n.rec.getRun(w, t, runId)).status).toBe(404);
    }
    deletedThread = t;
  }

  it("delete racing creation: after the delete is answered, nothing of the thread is readable through the API", async () => {
    // The store-side purge (checkpoints, workspace) is issue item 5: its leftovers are the pending scenario below.
    const result = await scenario("delete-race", deleteRace, { purge: false });
    expectClean(result);
  });

  // Was pending on issue item 5 (delete purges checkpoints, workspace, journal, store rows; a re-created thread starts empty)
  it("delete racing creation: the purge leaves nothing in the store or the workspaces, and a re-created thread starts empty", async () => {
    const result = await scenario("delete-purge", async () => {
      await deleteRace();
      const t = deletedThread!;
      await sleep(1_000);
      const again = await n.rec.createThread(C, { threadId: t, key: n.freshKey() });
      expect(again.status).toBe(200);
      const state = await n.rec.call(C, "read_thread", "GET", `/threads/${t}/state`);
      expect((state.body as { values?: Record<string, unknown> }).values ?? {}).toEqual({});
    });
    expectClean(result);
  });

  /** 200 concurrent run creations with `strategy` on one thread, spread over the three workers. */
  async function concurrentCreations(strategy: string): Promise<{ t: string; answers: Answer[] }> {
    const t = await n.newThread(A, n.freshKey());
    n.closeGate(t);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => n.rec.createRun([A, B, C][i % 3]!, t, { multitask_strategy: strategy, input: `attempt ${i}` })));
    await sleep(500);
    n.openGate(t);
    await n.quiesce([t], 60_000);
    const admitted = answers.filter((a) => a.status === 200).map((a) => a.runId!);
    const expired = await n.query<{ run_id: string; outcome: string }>("select run_id, outcome from keel_runs where thread_id = $1 and outcome like '%lease_expired%'", [t]);
    if (expired.length > 0) {
      const lines = [A, B, C].flatMap((w) => `${w.process.output().stdout}\n${w.process.output().stderr}`.split("\n").filter((l) => expired.some((r) => l.includes(r.run_id)) || /heartbeat|lease/i.test(l)).map((l) => `${w.name}: ${l}`));
      console.log(`lease expiries under ${strategy}: ${expired.length}\n${lines.slice(-15).join("\n")}`);
    }
    const stored = (await n.query<{ run_id: string }>("select run_id from keel_runs where thread_id = $1", [t])).map((r) => r.run_id);
    // Every stored run was answered 200 to its client, and every 200 is stored: no phantom runs, none lost.
    expect(stored.sort()).toEqual(admitted.sort());
    for (const a of answers) expect(a.status, JSON.stringify(a.body ?? a.error)).toBeDefined();
    return { t, answers };
  }

  it("200 concurrent creations with multitask_strategy reject: exactly one admitted, 199 refused 409", async () => {
    const result = await scenario("concurrent-reject", async () => {
      const { t, answers } = await concurrentCreations("reject");
      // One admitted while it runs; a run that ended early (a false lease expiry, item 9) frees the
      // thread for one later creation, so each such end allows one more admission.
      const expiredEarly = (await n.query("select 1 from keel_runs where thread_id = $1 and outcome like '%lease_expired%'", [t])).length;
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1 + expiredEarly);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(199 - expiredEarly);
    });
    expectClean(result);
  });

  it("200 concurrent creations with multitask_strategy enqueue: the rest refused 429, the admitted runs run one at a time and end", async () => {
    const result = await scenario("concurrent-enqueue", async () => {
      const { t, answers } = await concurrentCreations("enqueue");
      const admitted = answers.filter((a) => a.status === 200);
      expect(admitted.length).toBeGreaterThan(0);
      // The per-user limit (8) is the pending scenario below: it was overshot by one in 1 of 3 runs.
      expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429)).toBe(true);
      const statuses = (await n.query<{ status: string }>("select status from keel_runs where thread_id = $1", [t])).map((r) => r.status);
      // All of them `success` is the pending scenario below (a false lease expiry, item 9, fails one now and then).
      expect(statuses.every((status) => TERMINAL.includes(status))).toBe(true);
    });
    expectClean(result);
  });

  // Was pending on issue item 6 (a run counts toward its user's active limit while running or due):
  // before the claim queue, 9 and 10 of 200 concurrent enqueue creations were admitted in 2 of 4 runs
  // (limit 8), and a false lease expiry (item 9) ended 2 of them `error` once.
  it("200 concurrent creations with multitask_strategy enqueue never admit more than the per-user limit (8), and all succeed", async () => {
    const result = await scenario("concurrent-enqueue-limit", async () => {
      const { t, answers } = await concurrentCreations("enqueue");
      const admitted = answers.filter((a) => a.status === 200);
      expect(admitted.length).toBeLessThanOrEqual(8);
      const statuses = (await n.query<{ status: string }>("select status from keel_runs where thread_id = $1", [t])).map((r) => r.status);
      expect(statuses).toEqual(Array(admitted.length).fill("success"));
    });
    expectClean(result);
  });

  // Was pending: 104–190 of the 200 creations got no answer within 30 s — each admission cancelled,
  // one store call per run, every pending run it saw (≈ n²/2 cancels); now each admission supersedes
  // the thread's pending runs in its own transaction (kernel/runs/README.md, "Interrupt and rollback").
  it("200 concurrent creations with multitask_strategy interrupt: one run at a time, the last one admitted finishes", async () => {
    const result = await scenario("concurrent-interrupt", async () => {
      const { t, answers } = await concurrentCreations("interrupt");
      const admitted = answers.filter((a) => a.status === 200);
      expect(admitted.length).toBeGreaterThan(0);
      const rows = await n.query<{ status: string; outcome: string | null }>("select status, outcome from keel_runs where thread_id = $1 order by id", [t]);
      expect(rows.at(-1)?.status).toBe("success");
      // Every earlier run was interrupted (superseded while pending, or cancelled while running) —
      // or, as in concurrent-reject, ended by a false lease expiry of a starved worker (its lines are
      // printed above; control-no-false-expiry is the scenario that holds those to zero).
      const falseExpiry = (r: { status: string; outcome: string | null }) => r.status === "error" && (r.outcome ?? "").includes("lease_expired");
      expect(rows.slice(0, -1).filter((r) => r.status !== "interrupted" && !falseExpiry(r))).toEqual([]);
    });
    expectClean(result);
  });

  // Was pending (46 creations unanswered within 30 s): the same root cause as concurrent-interrupt;
  // a refused `rollback` admission writes nothing (checked in its transaction).
  it("200 concurrent creations with multitask_strategy rollback: refusals leave no record, one run at a time", async () => {
    const result = await scenario("concurrent-rollback", async () => {
      const { answers } = await concurrentCreations("rollback");
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
      expect(answers.every((a) => [200, 409, 429].includes(a.status!))).toBe(true);
    });
    expectClean(result);
  });

  const negativeControl = noFencingSupported();
  if (!negativeControl) console.warn(`skipping the nemesis negative control: neither \`keel serve --help\` nor the READMEs document ${NO_FENCING_ENV} (issue item 2)`);
  // Needs item 2's test-only switch that turns fencing off; under CI=true it runs (and fails) without it.
  it.skipIf(!negativeControl && process.env.CI !== "true")("negative control: with fencing switched off, the SIGSTOP scenario makes the checker report writes after fencing", async () => {
    const U = await n.startWorker("U", { [NO_FENCING_ENV]: "1" });
    const result = await scenario("negative-control", async () => {
      const t = await n.newThread(U, n.freshKey());
      n.closeGate(t);
      const runId = await runningRun(U, t);
      await n.inCommand(t);
      const lift = n.rec.fault("worker_pause", "U");
      U.kill("SIGSTOP");
      await n.waitForStatus(runId, TERMINAL, 25_000);
      n.openGate(t);
      U.kill("SIGCONT");
      lift();
      await sleep(3_000);
    });
    await U.stop("SIGTERM");
    expect(result.violations.map((v) => v.kind)).toContain("write_after_fence");
  });
});

const join_ = (...parts: string[]) => join(...parts);
