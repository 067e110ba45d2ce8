/**
 * `Last-Event-ID` on a rejoin (`GET …/runs/:rid/stream`), on both bridges: `-1` (the
 * SDK's useStream) replays from the start, a `<ms>-<seq>` id resumes after it, anything
 * else is 400 `KEEL_ERR_HTTP_INVALID_BODY` at `/last_event_id` — before any stream opens.
 * The Redis leg needs KEEL_TEST_REDIS_URL (default redis://127.0.0.1:6379); locally it is
 * skipped with the reason printed, never under CI=true.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import type { StreamBridge } from "../../../kernel/runs/types.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { createRedisStreamBridge } from "../../../plugins/stream-redis/index.js";
import { ALICE, createThread, parseSse, ScriptedExecutor } from "./harness.js";
import { redisUnreachable, TEST_REDIS_URL } from "../../redis-probe.js";

const url = TEST_REDIS_URL;

const unavailable = await redisUnreachable(url);
if (unavailable !== null && process.env.CI !== "true") console.warn(`skipping the Redis leg of the Last-Event-ID tests: ${unavailable}`);

const legs: { name: string; skip: boolean; bridge: () => StreamBridge }[] = [
  { name: "memory bridge", skip: false, bridge: () => new MemoryStreamBridge() },
  { name: "Redis bridge", skip: unavailable !== null && process.env.CI !== "true", bridge: () => createRedisStreamBridge(url) },
];

for (const leg of legs) {
  describe.skipIf(leg.skip)(`Last-Event-ID on a rejoin: ${leg.name}`, () => {
    let app: GatewayApp;
    let runs: RunManager;
    let bridge: StreamBridge;
    beforeAll(async () => {
      const store = new MemoryRunStore();
      bridge = leg.bridge();
      runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
      runs.start();
      app = await createGateway({ deps: { runs, store, bridge }, apiKeys: new ApiKeys([["key-alice", "alice"]]), stacks: ["lead"], version: "9.9.9-test" });
    });
    afterAll(async () => {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    });

    async function finishedRun(): Promise<{ threadId: string; runId: string; ids: string[] }> {
      const threadId = await createThread(app);
      const streamed = await app.inject({ method: "POST", url: `/threads/${threadId}/runs/stream`, headers: ALICE, payload: { assistant_id: "lead", input: { events: 3 }, stream_mode: ["custom", "values"] } });
      const runId = (streamed.headers["content-location"] as string).split("/").at(-1)!;
      return { threadId, runId, ids: parseSse(streamed.body).map((f) => f.id!) };
    }
    const rejoin = (threadId: string, runId: string, headers: Record<string, string>, query = "") =>
      app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/stream${query}`, headers: { ...ALICE, ...headers } });

    it("`-1` replays the whole stream, as no Last-Event-ID does (header and query)", async () => {
      const { threadId, runId, ids } = await finishedRun();
      expect(ids).toHaveLength(6);
      for (const response of [await rejoin(threadId, runId, { "last-event-id": "-1" }), await rejoin(threadId, runId, {}, "?last_event_id=-1"), await rejoin(threadId, runId, {})]) {
        expect(response.statusCode).toBe(200);
        expect(parseSse(response.body).map((f) => f.id)).toEqual(ids);
      }
      expect(parseSse((await rejoin(threadId, runId, { "last-event-id": ids[2]! })).body).map((f) => f.id)).toEqual(ids.slice(3));
    });

    it("anything else is 400 KEEL_ERR_HTTP_INVALID_BODY at /last_event_id, not a stream", async () => {
      const { threadId, runId } = await finishedRun();
      for (const bad of ["-2", "abc", "1-2-3", "1.5-0", "-1-0", "0x10-0", "1-", "99999999999999999999999-a"]) {
        const response = await rejoin(threadId, runId, { "last-event-id": bad });
        expect([bad, response.statusCode, response.headers["content-type"]]).toEqual([bad, 400, expect.stringMatching(/json/)]);
        expect(response.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/last_event_id" });
      }
    });
  });
}
