/**
 * The gateway's side of thread TTL (docs/http.md, "Thread TTL and
 * retention"): `POST /threads` gives the thread its expiry (the body's `ttl` minutes, else
 * the server's default), and a run admitted on it pushes the expiry. Injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ThreadRetention } from "../../../kernel/runs/thread-retention.js";
import { createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { startHarness, type Harness } from "./harness.js";

describe("thread TTL through the gateway", () => {
  let h: Harness;
  let app: GatewayApp;
  let now = Date.parse("2031-05-01T00:00:00.000Z");
  beforeAll(async () => {
    h = await startHarness();
    const retention = new ThreadRetention({ store: h.store, deleteThread: (id, o) => h.runs.deleteThread(id, o), clock: () => now }, { defaultTtlMinutes: 90, sweepMinutes: 1 });
    app = await createGateway({ deps: { runs: h.runs, store: h.store, bridge: h.bridge, retention }, stacks: ["lead"], version: "0" });
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  it("creates with the default TTL or the body's, and a run pushes the expiry", async () => {
    const plain = (await app.inject({ method: "POST", url: "/threads", payload: {}, headers: { host: "localhost" } })).json().thread_id as string;
    const own = (await app.inject({ method: "POST", url: "/threads", payload: { ttl: { ttl: 15, strategy: "delete" } }, headers: { host: "localhost" } })).json().thread_id as string;
    expect(await h.store.getThreadExpiry(plain)).toEqual({ threadId: plain, ttlMinutes: 90, expiresAt: "2031-05-01T01:30:00.000Z" });
    expect(await h.store.getThreadExpiry(own)).toEqual({ threadId: own, ttlMinutes: 15, expiresAt: "2031-05-01T00:15:00.000Z" });
    now += 10 * 60_000;
    const run = await app.inject({ method: "POST", url: `/threads/${own}/runs`, payload: { assistant_id: "lead", input: { events: 1 } }, headers: { host: "localhost" } });
    expect(run.statusCode).toBe(200);
    expect((await h.store.getThreadExpiry(own))?.expiresAt).toBe("2031-05-01T00:25:00.000Z");
  });

  it("refuses a TTL that is not a positive number of minutes, or another strategy, naming the field", async () => {
    for (const [ttl, pointer] of [[{ ttl: 0 }, "/ttl/ttl"], [{ ttl: "1h" }, "/ttl/ttl"], [{ ttl: 5, strategy: "keep_latest" }, "/ttl/strategy"]] as const) {
      const response = await app.inject({ method: "POST", url: "/threads", payload: { ttl }, headers: { host: "localhost" } });
      expect([response.statusCode, response.json().pointer]).toEqual([400, pointer]);
    }
  });
});
