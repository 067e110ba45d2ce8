import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./harness.js";

/**
 * `GET /ready` (readiness) against `GET /ok` (liveness): the store's and the bridge's
 * `ping()` are asked on every call, so readiness flips back without a restart. The real
 * database and Redis faults are in test/e2e/ready-faults.int.test.ts.
 */
describe("gateway GET /ready", () => {
  let h: Harness;
  afterEach(async () => h.close());

  it("answers 200 with every check ok, without an API key", async () => {
    h = await startHarness();
    const ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { worker: "ok", store: "ok", stream: "ok" } });
  });

  it("answers 503 KEEL_ERR_HTTP_NOT_READY naming the store or the stream while its ping fails, then 200 again; /ok stays 200", async () => {
    h = await startHarness();
    let storeDown = false;
    let streamDown = false;
    Object.assign(h.store, { ping: async () => (storeDown ? Promise.reject(new Error("connect ECONNREFUSED")) : undefined) });
    // A ping that never settles counts as unreachable after the probe timeout.
    Object.assign(h.bridge, { ping: () => (streamDown ? new Promise<void>(() => undefined) : Promise.resolve()) });

    storeDown = true;
    let ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ error: "KEEL_ERR_HTTP_NOT_READY", message: "not ready: the store is unreachable", detail: "not ready: the store is unreachable", checks: { worker: "ok", store: "unreachable", stream: "ok" } });
    expect((await h.app.inject({ method: "GET", url: "/ok" })).statusCode).toBe(200);

    storeDown = false;
    streamDown = true;
    ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ error: "KEEL_ERR_HTTP_NOT_READY", checks: { store: "ok", stream: "unreachable" } });

    streamDown = false;
    ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(200);
  });

  it("answers 503 with worker `shutting_down` once the run manager shuts down", async () => {
    h = await startHarness();
    await h.runs.shutdown();
    const ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ error: "KEEL_ERR_HTTP_NOT_READY", message: "not ready: the worker is shutting down", checks: { worker: "shutting_down" } });
    expect((await h.app.inject({ method: "GET", url: "/ok" })).statusCode).toBe(200);
  });
});
