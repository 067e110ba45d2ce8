/**
 * The Redis control channel subscribing while its pub/sub connection is in its handshake
 * (ioredis status `connect`, first connect and reconnect), against a real Redis
 * (KEEL_TEST_REDIS_URL, default redis://127.0.0.1:6379). Without the handshake gate the
 * SUBSCRIBE issued in that window put the connection in subscriber mode before the INFO
 * ready check: the check was refused, the queued SUBSCRIBEs rejected with "Connection in
 * subscriber mode, only subscriber commands may be used" (a run's `onControl` failed) and
 * the connection came back without the channel just confirmed. The window is hit exactly:
 * the test listens from the connection's own `connect` event.
 * Locally, without Redis, the tests are skipped with the reason printed; with CI=true
 * a missing Redis fails the run.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { ControlMessage } from "../../../kernel/runs/types.js";
import { RedisControlChannel } from "../../../plugins/stream-redis/control-channel.js";
import { redisUnreachable, TEST_REDIS_URL } from "../../redis-probe.js";

const url = TEST_REDIS_URL;

const unavailable = await redisUnreachable(url);
if (unavailable !== null && process.env.CI !== "true") console.warn(`skipping the stream-redis control-channel tests: ${unavailable}`);

it.runIf(process.env.CI === "true")("has Redis in CI", () => {
  expect(unavailable, `${unavailable}; CI must provide Redis (.ci/run starts redis-server)`).toBeNull();
});

/** Run ids of this file only (the channels are `keel:run:<id>:control` on the shared Redis). */
const runId = (name: string) => `test-h-control-${name}-${randomUUID()}`;

const closing: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/**
 * A commands connection whose `duplicate()` (the channel's subscriber) is handed to
 * `onDuplicate` as soon as it exists, so the test can act on its events.
 */
function commandsConnection(onDuplicate: (subscriber: Redis) => void): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined);
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override) => {
    const subscriber = duplicate(override);
    onDuplicate(subscriber);
    return subscriber;
  };
  closing.push(() => redis.disconnect());
  return redis;
}

/**
 * The messages a handler of `id` received after one publish. `listen` resolved once Redis
 * confirmed the subscription, so the message must arrive; polled for at most 1 s.
 */
async function delivered(publisher: RedisControlChannel, id: string, inbox: Map<string, ControlMessage[]>): Promise<ControlMessage[]> {
  await publisher.publish(id, { type: "cancel", action: "interrupt" });
  for (let attempt = 0; attempt < 50 && (inbox.get(id) ?? []).length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  return inbox.get(id) ?? [];
}

describe.skipIf(unavailable !== null)("stream-redis control channel during the subscriber's handshake", () => {
  function setUp(onSubscriber: (subscriber: Redis) => void) {
    const inbox = new Map<string, ControlMessage[]>();
    const errors: string[] = [];
    const redis = commandsConnection((subscriber) => {
      subscriber.on("error", (error: Error) => errors.push(error.message));
      onSubscriber(subscriber);
    });
    const channel = new RedisControlChannel(redis);
    closing.push(() => channel.close());
    const publisherConnection = new Redis(url, { maxRetriesPerRequest: 1 });
    publisherConnection.on("error", () => undefined);
    closing.push(() => publisherConnection.disconnect());
    const publisher = new RedisControlChannel(publisherConnection);
    const listen = (id: string) =>
      channel.listen(id, (message) => {
        const list = inbox.get(id) ?? [];
        list.push(message);
        inbox.set(id, list);
      });
    return { publisher, inbox, errors, listen };
  }

  it("a run listening while the connection is first in its handshake, and one queued before, both subscribe and receive", async () => {
    let inHandshake: Promise<unknown> | undefined;
    const late = runId("late");
    let statusAtConnect = "";
    const { publisher, inbox, errors, listen } = setUp((subscriber) => {
      subscriber.once("connect", () => {
        statusAtConnect = subscriber.status;
        inHandshake = listen(late);
      });
    });
    const early = runId("early");
    // The first listen opens the subscriber connection (its SUBSCRIBE is queued until ready).
    const earlyListening = listen(early);
    await expect(earlyListening).resolves.toBeTypeOf("function");
    expect(inHandshake, "the subscriber's connect event came before the first SUBSCRIBE was confirmed").toBeDefined();
    await expect(inHandshake).resolves.toBeTypeOf("function");
    expect(statusAtConnect).toBe("connect");

    expect(await delivered(publisher, early, inbox)).toEqual([{ type: "cancel", action: "interrupt" }]);
    expect(await delivered(publisher, late, inbox)).toEqual([{ type: "cancel", action: "interrupt" }]);
    expect(errors).toEqual([]);
  });

  it("after a reconnect, a run listening in the new handshake subscribes, and the channels held before are resubscribed", async () => {
    let subscriberConnection: Redis | undefined;
    const { publisher, inbox, errors, listen } = setUp((subscriber) => (subscriberConnection = subscriber));
    const before = runId("before");
    await listen(before);
    expect(await delivered(publisher, before, inbox)).toEqual([{ type: "cancel", action: "interrupt" }]);

    const subscriber = subscriberConnection!;
    const during = runId("during");
    let statusAtConnect = "";
    const listening = new Promise<unknown>((resolve, reject) => {
      subscriber.once("connect", () => {
        statusAtConnect = subscriber.status;
        listen(during).then(resolve, reject);
      });
    });
    subscriber.disconnect(true); // drop the socket and reconnect, as after a network blip
    await expect(listening).resolves.toBeTypeOf("function");
    expect(statusAtConnect).toBe("connect");
    await new Promise<void>((resolve) => (subscriber.status === "ready" ? resolve() : subscriber.once("ready", () => resolve())));

    inbox.clear();
    expect(await delivered(publisher, during, inbox)).toEqual([{ type: "cancel", action: "interrupt" }]);
    expect(await delivered(publisher, before, inbox)).toEqual([{ type: "cancel", action: "interrupt" }]);
    expect(errors).toEqual([]);
  });
});
