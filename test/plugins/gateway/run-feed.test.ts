/**
 * `GET /keel/feed` (docs/http.md, "Run-status feed"): a `snapshot` of the
 * caller's recent runs, then a `run` summary at every change of one of them — from this
 * worker or another one on the same bridge — and never another user's run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import type { RunSummary } from "../../../kernel/runs/run-feed.js";
import type { StreamBridge } from "../../../kernel/runs/types.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { createRedisStreamBridge } from "../../../plugins/stream-redis/index.js";
import { redisUnreachable, TEST_REDIS_URL } from "../../redis-probe.js";
import { ALICE, BOB, createThread, ScriptedExecutor, startHarness, until, type Harness } from "./harness.js";
import { openFeed, runEvent } from "./feed-client.js";

const listening = async (app: GatewayApp): Promise<string> => {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

async function createRun(app: GatewayApp, threadId: string, input: unknown, headers = ALICE): Promise<string> {
  const response = await app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers, payload: { assistant_id: "lead", input, on_disconnect: "continue" } });
  expect(response.statusCode).toBe(200);
  return (response.json() as { run_id: string }).run_id;
}

describe("GET /keel/feed on one worker", () => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await startHarness({ heartbeatMs: 100 });
    url = await listening(h.app);
  });
  afterAll(async () => h.close());

  it("starts with a snapshot of the caller's runs, then sends each change of a live run until its end", async () => {
    const threadId = await createThread(h.app);
    const finished = await createRun(h.app, threadId, { events: 1 });
    await until(async () => (await h.store.getRun(finished))?.status === "success", "the first run's end");

    const feed = await openFeed(url, ALICE);
    try {
      expect(feed.status).toBe(200);
      const snapshot = await feed.waitFor((m) => m.event === "snapshot", "snapshot");
      expect(feed.messages[0]).toBe(snapshot);
      const runs = (snapshot.data as { runs: RunSummary[] }).runs;
      expect(runs.map((r) => r.run_id)).toEqual([finished]);
      expect(runs[0]).toMatchObject({ thread_id: threadId, assistant_id: "lead", user: "alice", status: "success", outcome: { status: "succeeded" }, stop_reasons: [], activity: { kind: "finished" } });
      expect(runs[0]!.ended_at).toEqual(expect.any(String));

      const live = await createRun(h.app, threadId, "gate");
      const running = await feed.waitFor(runEvent(live, (s) => s.status === "running"), "the live run running");
      expect(running.data).toMatchObject({ run_id: live, thread_id: threadId, user: "alice", outcome: null, ended_at: null, activity: { kind: "model" } });
      await until(() => h.executor.isWaiting(live), "the run waiting");
      h.executor.release(live);
      const ended = await feed.waitFor(runEvent(live, (s) => s.status === "success"), "the live run's end");
      expect(ended.data).toMatchObject({ outcome: { status: "succeeded" }, activity: { kind: "finished" }, ended_at: expect.any(String) });
      // The feed never ends: no `end` event, only snapshot and run events.
      expect(new Set(feed.messages.map((m) => m.event))).toEqual(new Set(["snapshot", "run"]));
    } finally {
      feed.close();
    }
  });

  it("never shows another user's runs, in the snapshot or live", async () => {
    const bobThread = await createThread(h.app, BOB);
    const bobsFinished = await createRun(h.app, bobThread, { events: 1 }, BOB);
    await until(async () => (await h.store.getRun(bobsFinished))?.status === "success", "bob's first run");
    const alice = await openFeed(url, ALICE);
    const bob = await openFeed(url, BOB);
    try {
      const aliceSnapshot = (await alice.waitFor((m) => m.event === "snapshot", "alice's snapshot")).data as { runs: RunSummary[] };
      expect(aliceSnapshot.runs.length).toBeGreaterThan(0);
      expect(aliceSnapshot.runs.every((r) => r.user === "alice")).toBe(true);
      const bobSnapshot = (await bob.waitFor((m) => m.event === "snapshot", "bob's snapshot")).data as { runs: RunSummary[] };
      expect(bobSnapshot.runs.map((r) => r.run_id)).toEqual([bobsFinished]);

      const bobsLive = await createRun(h.app, bobThread, { events: 2 }, BOB);
      await bob.waitFor(runEvent(bobsLive, (s) => s.status === "success"), "bob's live run on bob's feed");
      // Alice's own run after it: the feed is ordered, so bob's summaries would have come first.
      const aliceThread = await createThread(h.app);
      const alicesLive = await createRun(h.app, aliceThread, { events: 1 });
      await alice.waitFor(runEvent(alicesLive, (s) => s.status === "success"), "alice's run on alice's feed");
      const seen = alice.messages.flatMap((m) => (m.event === "run" ? [(m.data as RunSummary).run_id] : []));
      expect(seen).toContain(alicesLive);
      expect(seen).not.toContain(bobsLive);
      expect(bob.messages.flatMap((m) => (m.event === "run" ? [(m.data as RunSummary).run_id] : []))).not.toContain(alicesLive);
    } finally {
      alice.close();
      bob.close();
    }
  });

  it("filters by status, assistant and thread, and bounds the snapshot with limit", async () => {
    const threadA = await createThread(h.app);
    const threadB = await createThread(h.app);
    const a1 = await createRun(h.app, threadA, { events: 1 });
    await until(async () => (await h.store.getRun(a1))?.status === "success", "a1");
    const b1 = await createRun(h.app, threadB, "fail");
    await until(async () => (await h.store.getRun(b1))?.status === "error", "b1");
    const b2 = await createRun(h.app, threadB, { events: 1 });
    await until(async () => (await h.store.getRun(b2))?.status === "success", "b2");

    const snapshotOf = async (query: string) => {
      const feed = await openFeed(url, ALICE, query);
      try {
        return ((await feed.waitFor((m) => m.event === "snapshot", `snapshot ${query}`)).data as { runs: RunSummary[] }).runs;
      } finally {
        feed.close();
      }
    };
    expect((await snapshotOf(`?thread_id=${threadB}`)).map((r) => r.run_id)).toEqual([b2, b1]);
    expect((await snapshotOf(`?thread_id=${threadB}&status=error`)).map((r) => r.run_id)).toEqual([b1]);
    expect((await snapshotOf(`?thread_id=${threadB}&status=error&status=success`)).map((r) => r.run_id)).toEqual([b2, b1]);
    expect((await snapshotOf(`?limit=1`)).map((r) => r.run_id)).toEqual([b2]);
    expect(await snapshotOf(`?assistant_id=subagent`)).toEqual([]);
    const failed = (await snapshotOf(`?thread_id=${threadB}&status=error`))[0]!;
    expect(failed).toMatchObject({ status: "error", outcome: { status: "failed" }, activity: { kind: "finished" } });

    // Live events are filtered too: a thread filter drops other threads' runs.
    const feed = await openFeed(url, ALICE, `?thread_id=${threadA}`);
    try {
      await feed.waitFor((m) => m.event === "snapshot", "snapshot");
      const other = await createRun(h.app, threadB, { events: 1 });
      await until(async () => (await h.store.getRun(other))?.status === "success", "the other thread's run");
      const mine = await createRun(h.app, threadA, { events: 1 });
      await feed.waitFor(runEvent(mine, (s) => s.status === "success"), "the thread's run");
      expect(feed.messages.some(runEvent(other))).toBe(false);
    } finally {
      feed.close();
    }
  });

  it("refuses bad queries with a stable code and requires a key", async () => {
    for (const query of ["?limit=0", "?limit=201", "?status=finished", "?limit=x"]) {
      const response = await h.app.inject({ method: "GET", url: `/keel/feed${query}`, headers: ALICE });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error, query).toBe("KEEL_ERR_HTTP_INVALID_BODY");
    }
    const anonymous = await h.app.inject({ method: "GET", url: "/keel/feed" });
    expect(anonymous.statusCode).toBe(401);
  });
});

const redisMissing = await redisUnreachable(TEST_REDIS_URL);
if (redisMissing !== null && process.env.CI !== "true") console.warn(`skipping the Redis leg of the run-status feed tests: ${redisMissing}`);

const legs: { name: string; skip: boolean; bridges: () => [StreamBridge, StreamBridge] }[] = [
  {
    name: "the memory bridge",
    skip: false,
    bridges: () => {
      const shared = new MemoryStreamBridge();
      return [shared, shared];
    },
  },
  { name: "Redis", skip: redisMissing !== null && process.env.CI !== "true", bridges: () => [createRedisStreamBridge(TEST_REDIS_URL, { blockMs: 100 }), createRedisStreamBridge(TEST_REDIS_URL, { blockMs: 100 })] },
];

for (const leg of legs) {
  describe.skipIf(leg.skip)(`GET /keel/feed across two workers on ${leg.name}`, () => {
    const store = new MemoryRunStore();
    let bridges: [StreamBridge, StreamBridge];
    let servingManager: RunManager;
    let otherManager: RunManager;
    const otherExecutor = new ScriptedExecutor();
    let app: GatewayApp;
    let url: string;
    const user = `feed-user-${Math.random().toString(36).slice(2, 10)}`;
    const headers = { "x-api-key": "key-feed" };

    beforeAll(async () => {
      bridges = leg.bridges();
      // The serving worker never claims (no poll, no admissions of its own): the other worker runs everything.
      servingManager = new RunManager({ store, bridge: bridges[0], executor: new ScriptedExecutor(), log: () => undefined });
      otherManager = new RunManager({ store, bridge: bridges[1], executor: otherExecutor, log: () => undefined });
      app = await createGateway({ deps: { runs: servingManager, store, bridge: bridges[0] }, apiKeys: new ApiKeys([["key-feed", user]]), stacks: ["lead"], version: "9.9.9-test", heartbeatMs: 100 });
      url = await listening(app);
    });
    afterAll(async () => {
      await otherManager.shutdown();
      await servingManager.shutdown();
      await app.close();
      await bridges[0].close();
      if (bridges[1] !== bridges[0]) await bridges[1].close();
    });

    it("shows a run the other worker admits, runs and ends", async () => {
      const threadId = await createThread(app, headers);
      const feed = await openFeed(url, headers);
      try {
        await feed.waitFor((m) => m.event === "snapshot", "snapshot");
        const run = await otherManager.createOrReject(threadId, { assistantId: "lead", input: "gate" }, { user });
        expect(run.status).toBe("running");
        await feed.waitFor(runEvent(run.runId, (s) => s.status === "running"), "the other worker's run running");
        await until(() => otherExecutor.isWaiting(run.runId), "the run waiting");
        otherExecutor.release(run.runId);
        const ended = await feed.waitFor(runEvent(run.runId, (s) => s.status === "success"), "its end");
        expect(ended.data).toMatchObject({ thread_id: threadId, user, outcome: { status: "succeeded" }, activity: { kind: "finished" } });
        expect(otherExecutor.started).toContain(run.runId);
      } finally {
        feed.close();
      }
    });
  });
}
