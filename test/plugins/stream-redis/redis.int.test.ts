/**
 * The Redis stream bridge against a real Redis (KEEL_TEST_REDIS_URL, default
 * redis://127.0.0.1:6379): the conformance suite with two bridges as two workers, plus
 * what only Redis has (key layout, expiry, exact MAXLEN, connections closed).
 * Locally, without Redis, the tests are skipped with the reason printed; with CI=true
 * a missing Redis fails the run.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../kernel/package-root.js";
import streamRedisPlugin, { createRedisStreamBridge, eventsKey, controlChannel, STREAM_BRIDGE_PORT } from "../../../plugins/stream-redis/index.js";
import type { ControlMessage } from "../../../kernel/runs/types.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";
import { collect, describeStreamBridgeConformance, expectStreamEvents, newRunId, RUN_ID_PREFIX } from "../../runs/bridge-conformance.js";

const url = process.env.KEEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function probe(): Promise<string | null> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  let lastError: Error | undefined;
  client.on("error", (error: Error) => (lastError = error));
  try {
    await client.connect();
    const info = await client.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    // XRANGE with an exclusive `(id` needs Redis 6.2.
    if (version && (Number(version[1]) < 6 || (Number(version[1]) === 6 && Number(version[2]) < 2))) return `Redis at ${url} is ${version[0]}; 6.2 or newer is needed`;
    return null;
  } catch (error) {
    return `Redis not reachable at KEEL_TEST_REDIS_URL=${url} (${(lastError ?? (error as Error)).message})`;
  } finally {
    client.disconnect();
  }
}

const unavailable = await probe();
if (unavailable !== null && process.env.CI !== "true") console.warn(`skipping the stream-redis integration tests: ${unavailable}`);

describe("stream-redis plugin", () => {
  it("passes the manifest audit and provides the stream-bridge port", () => {
    expect(new PluginTester().audit(streamRedisPlugin)).toEqual([]);
    expect(streamRedisPlugin.manifest.provides).toEqual([STREAM_BRIDGE_PORT]);
    expect(Object.keys(streamRedisPlugin.services ?? {})).toEqual([STREAM_BRIDGE_PORT]);
  });

  // In CI a missing Redis fails here instead of skipping the suite below.
  it.runIf(process.env.CI === "true")("has Redis in CI", () => {
    expect(unavailable, `${unavailable}; CI must provide Redis (.ci/run starts redis-server)`).toBeNull();
  });
});

describe.skipIf(unavailable !== null)("stream-redis against Redis", () => {
  // Opened in beforeAll: a skipped describe still runs its body, and must not connect.
  let raw: Redis;
  beforeAll(() => {
    raw = new Redis(url);
  });
  afterAll(async () => {
    // Streams of runs the tests never ended have no expiry: remove every one these tests made.
    for (let cursor = "0"; ; ) {
      const [next, keys] = await raw.scan(cursor, "MATCH", `keel:run:${RUN_ID_PREFIX}*`, "COUNT", 1000);
      if (keys.length > 0) await raw.del(...keys);
      if ((cursor = next) === "0") break;
    }
    await raw.quit();
  });

  describeStreamBridgeConformance("redis", () => createRedisStreamBridge(url, { maxLen: 8, blockMs: 250 }), { retention: 8, sharedBackend: true });

  it("stores one stream per run under keel:run:<runId>:events and expires it 24 h after `end`", async () => {
    const bridge = createRedisStreamBridge(url);
    try {
      const runId = newRunId();
      const e0 = await bridge.publish(runId, "values", { step: 0 });
      expect(await raw.ttl(eventsKey(runId))).toBe(-1);
      const end = await bridge.end(runId);
      const ttl = await raw.ttl(eventsKey(runId));
      expect(ttl).toBeGreaterThan(86_400 - 60);
      expect(ttl).toBeLessThanOrEqual(86_400);
      expect(await raw.xrange(eventsKey(runId), "-", "+")).toEqual([
        [e0.id, ["event", "values", "data", '{"step":0}', "prev", "0-0"]],
        [end.id, ["event", "end", "data", "null", "prev", e0.id]],
      ]);
      // Ids are `<ms>-<n>`, n the event's number in the run.
      expect([e0.id.split("-")[1], end.id.split("-")[1]]).toEqual(["1", "2"]);
    } finally {
      await bridge.close();
    }
  });

  it("keeps exactly the newest 10,000 events by default", async () => {
    const bridge = createRedisStreamBridge(url);
    try {
      const runId = newRunId();
      const published = [];
      for (let batch = 0; batch < 10_010; batch += 1000) {
        const size = Math.min(1000, 10_010 - batch);
        // ioredis pipelines these on one connection, in order.
        published.push(...(await Promise.all(Array.from({ length: size }, (_, i) => bridge.publish(runId, "values", { i: batch + i })))));
      }
      expect(await raw.xlen(eventsKey(runId))).toBe(10_000);
      const kept = await bridge.read(runId);
      expect(kept.length).toBe(10_000);
      expect(kept[0]).toEqual(published[10]);
      expect(kept.at(-1)).toEqual(published.at(-1));
      await raw.del(eventsKey(runId));
    } finally {
      await bridge.close();
    }
  });

  it("records the lease epoch on each event, and refuses an event of an older epoch than the stream's last (KEEL_ERR_STREAM_FENCED)", async () => {
    const bridge = createRedisStreamBridge(url);
    try {
      const runId = newRunId();
      const first = await bridge.publish(runId, "metadata", { run_id: runId }, { epoch: 1 });
      const second = await bridge.publish(runId, "values", { step: 1 }, { epoch: 2 });
      expect([first.epoch, second.epoch]).toEqual([1, 2]);
      const stale = bridge.publish(runId, "values", { step: "stale" }, { epoch: 1 });
      await expect(stale).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_FENCED" });
      const end = await bridge.end(runId, { epoch: 2 });
      // The refused event took no number: subscribers see no hole.
      expect(end.id.split("-")[1]).toBe("3");
      expect(await bridge.read(runId)).toEqual([first, second, end]);
      expect(end.epoch).toBe(2);
      expect(await collect(bridge.subscribe(runId))).toEqual([first, second, end]);
      expectStreamEvents([first, second, end]);
    } finally {
      await bridge.close();
    }
  });

  it("a replay from the start of a run whose beginning was trimmed still begins with its first `metadata`, with no gap", async () => {
    const bridge = createRedisStreamBridge(url, { maxLen: 5 });
    try {
      const runId = newRunId();
      const metadata = await bridge.publish(runId, "metadata", { run_id: runId, attempt: 1 }, { epoch: 1 });
      const values = [];
      for (let i = 0; i < 10; i++) values.push(await bridge.publish(runId, "values", { step: i }, { epoch: 1 }));
      const end = await bridge.end(runId, { epoch: 1 });
      const retained = [...values.slice(-4), end];
      expect(await bridge.read(runId)).toEqual(retained);
      const replayed = await collect(bridge.subscribe(runId));
      expect(replayed).toEqual([metadata, ...retained]);
      expectStreamEvents(replayed);
      // A cursor is a position: no metadata is put in front of the events after it.
      expect(await collect(bridge.subscribe(runId, { lastEventId: values[6]!.id }))).toEqual(retained.slice(1));
      // The kept metadata expires with the stream.
      expect(await raw.ttl(`keel:run:${runId}:metadata`)).toBeGreaterThan(0);
    } finally {
      await bridge.close();
    }
  });

  it("`end` queued behind many unawaited publishes is written after all of them and settles last", async () => {
    const bridge = createRedisStreamBridge(url, { maxBatch: 64 });
    try {
      const runId = newRunId();
      const settled: string[] = [];
      const publishes = Array.from({ length: 300 }, (_, i) => bridge.publish(runId, "values", { i }).then((e) => (settled.push(e.event), e)));
      const end = bridge.end(runId).then((e) => (settled.push(e.event), e));
      const published = [...(await Promise.all(publishes)), await end];
      expect(settled.at(-1)).toBe("end");
      expect(settled.length).toBe(301);
      expect(await bridge.read(runId)).toEqual(published);
      await expect(bridge.publish(runId, "values", { late: true })).rejects.toMatchObject({ code: "KEEL_ERR_STREAM_ENDED" });
    } finally {
      await bridge.close();
    }
  });

  it("refuses invalid write options with KEEL_ERR_CONFIG_INVALID", () => {
    for (const bad of [{ flushMs: -1 }, { maxBatch: 0 }, { maxInFlight: 1.5 }]) {
      expect(() => createRedisStreamBridge(url, bad)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    }
  });

  it("ignores foreign or malformed messages on a control channel", async () => {
    const bridge = createRedisStreamBridge(url);
    try {
      const runId = newRunId();
      const received: ControlMessage[] = [];
      let arrived: () => void = () => {};
      const valid = new Promise<void>((resolve) => (arrived = resolve));
      await bridge.onControl(runId, (m) => {
        received.push(m);
        arrived();
      });
      await raw.publish(controlChannel(runId), "not json");
      await raw.publish(controlChannel(runId), JSON.stringify({ type: "cancel", action: "explode" }));
      await raw.publish(controlChannel(runId), JSON.stringify({ type: "cancel", action: "interrupt" }));
      await valid;
      expect(received).toEqual([{ type: "cancel", action: "interrupt" }]);
    } finally {
      await bridge.close();
    }
  });

  it("closes a subscription's connection when it is aborted, and every connection on close()", async () => {
    const name = `keel-test-${randomUUID()}`;
    const clientsNamed = async () => String(await raw.client("LIST")).split("\n").filter((line: string) => line.includes(` name=${name} `)).length;
    /** Connection counts change when the server notices; wait for it (bounded) rather than for a fixed time. */
    async function settle(expected: number): Promise<number> {
      let count = await clientsNamed();
      for (let i = 0; i < 100 && count !== expected; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        count = await clientsNamed();
      }
      return count;
    }
    const bridge = createRedisStreamBridge(url, { redis: { connectionName: name } });
    const runId = newRunId();
    const e0 = await bridge.publish(runId, "values", { step: 0 });
    await bridge.onControl(runId, () => {});
    const controller = new AbortController();
    const iterator = bridge.subscribe(runId, { signal: controller.signal })[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: e0 });
    const waiting = iterator.next();
    // The subscription follows live on a blocking connection of its own.
    expect(await settle(3)).toBe(3);
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(await settle(2)).toBe(2);
    await bridge.close();
    expect(await settle(0)).toBe(0);
    await raw.del(eventsKey(runId));
  });

  it("leaves nothing that keeps the process alive once subscriptions end and the bridge is closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-redis-exit-"));
    const script = join(dir, "exit.mts");
    const plugin = join(packageRoot(), "plugins", "stream-redis", "index.ts");
    writeFileSync(
      script,
      [
        `import { createRedisStreamBridge } from ${JSON.stringify(plugin)};`,
        `const bridge = createRedisStreamBridge(${JSON.stringify(url)});`,
        `const runId = ${JSON.stringify(newRunId())};`,
        `await bridge.publish(runId, "values", {});`,
        `await bridge.onControl(runId, () => {});`,
        `const controller = new AbortController();`,
        `const iterator = bridge.subscribe(runId, { signal: controller.signal })[Symbol.asyncIterator]();`,
        `await iterator.next();`,
        `const waiting = iterator.next();`,
        `setTimeout(() => controller.abort(), 100);`,
        `await waiting;`,
        `await bridge.end(runId);`,
        `await bridge.close();`,
        `console.log("closed");`,
      ].join("\n"),
    );
    try {
      // Node itself with tsx's loader (not the tsx wrapper), so a kill reaches the process under test.
      const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: packageRoot(), stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      // The process must exit by itself; a leaked socket or timer keeps it running, and it is killed after 20 s.
      const exited = new Promise<string>((resolve) => child.on("exit", (code) => resolve(`exit code ${code}`)));
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still running after 20 s"), 20_000)));
      const outcome = await Promise.race([exited, stuck]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill("SIGKILL");
      expect([outcome, output.trim()]).toEqual(["exit code 0", "closed"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
