/**
 * The rest of a server (docs/http.md, "CORS" and "Errors"): CORS
 * off by default and configurable, `detail` (= message) on every error body, and the
 * SDK's v2 thread protocol answered 501 with a stable code.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, createThread, startHarness, type Harness } from "./harness.js";

const APP = "https://app.example";

describe("CORS", () => {
  let h: Harness;
  let off: Harness;
  beforeAll(async () => {
    h = await startHarness({ gateway: { cors: { origins: [APP, "http://localhost:5173"] } } });
    off = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    await off.close();
  });

  const preflight = (app: Harness["app"], origin: string) =>
    app.inject({ method: "OPTIONS", url: "/threads", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key" } });

  it("answers a preflight from an allowed origin with 204 and the allow headers, before any key is asked for", async () => {
    const response = await preflight(h.app, APP);
    expect(response.statusCode).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBe(APP);
    expect(response.headers["access-control-allow-methods"]).toContain("POST");
    expect(response.headers["access-control-allow-headers"]).toBe("content-type, x-api-key");
    expect(response.headers["access-control-max-age"]).toBe("600");
    expect(response.headers.vary).toContain("Origin");
  });

  it("gives another origin no CORS headers (the browser refuses), on the preflight and on the request", async () => {
    const response = await preflight(h.app, "https://evil.example");
    expect(response.statusCode).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    const get = await h.app.inject({ method: "POST", url: "/threads", headers: { ...ALICE, origin: "https://evil.example" }, payload: {} });
    expect(get.statusCode).toBe(200);
    expect(get.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("marks answers to an allowed origin — successes, errors and streams — and exposes Content-Location", async () => {
    const created = await h.app.inject({ method: "POST", url: "/threads", headers: { ...ALICE, origin: APP }, payload: {} });
    expect(created.headers["access-control-allow-origin"]).toBe(APP);
    expect(created.headers["access-control-expose-headers"]).toContain("content-location");
    const unauthorized = await h.app.inject({ method: "GET", url: "/threads/x", headers: { origin: APP } });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers["access-control-allow-origin"]).toBe(APP);
    const threadId = created.json().thread_id as string;
    const stream = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/stream`, headers: { ...ALICE, origin: APP }, payload: { assistant_id: "lead", input: { events: 1 } } });
    expect(stream.headers["content-type"]).toContain("text/event-stream");
    expect(stream.headers["access-control-allow-origin"]).toBe(APP);
    const waited = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: { ...ALICE, origin: APP }, payload: { assistant_id: "lead", input: { events: 1 } } });
    expect(waited.headers["access-control-allow-origin"]).toBe(APP);
  });

  it("is off by default: a preflight is an ordinary unauthenticated request (401) with no CORS headers", async () => {
    const response = await preflight(off.app, APP);
    expect(response.statusCode).toBe(401);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("`*` allows any origin", async () => {
    const any = await startHarness({ gateway: { cors: { origins: ["*"] } } });
    try {
      const response = await preflight(any.app, "https://whoever.example");
      expect(response.headers["access-control-allow-origin"]).toBe("*");
    } finally {
      await any.close();
    }
  });

  it("refuses an origin that is not one (a path, another scheme) at start with KEEL_ERR_CONFIG_INVALID", async () => {
    for (const origin of ["https://app.example/path", "ftp://x.example", "app.example"]) {
      await expect(startHarness({ gateway: { cors: { origins: [origin] } } })).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID" });
    }
  });
});

describe("error bodies and the v2 thread protocol", () => {
  let h: Harness;
  let apiUrl: string;
  beforeAll(async () => {
    h = await startHarness();
    apiUrl = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  it("every error body has `detail` equal to `message`, keeping `error` and `pointer`", async () => {
    const cases = [
      await h.app.inject({ method: "GET", url: "/threads/nope", headers: ALICE }),
      await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { if_exists: "maybe" } }),
      await h.app.inject({ method: "GET", url: "/threads/x" }),
      await h.app.inject({ method: "GET", url: "/no/route", headers: ALICE }),
      await h.app.inject({ method: "POST", url: "/threads", headers: { ...ALICE, "content-type": "text/plain" }, payload: "x" }),
    ];
    expect(cases.map((c) => c.statusCode)).toEqual([404, 400, 401, 404, 415]);
    for (const response of cases) {
      const body = response.json();
      expect(typeof body.message).toBe("string");
      expect(body.detail).toBe(body.message);
    }
    expect(cases[1]!.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/if_exists" });
  });

  it("answers the SDK's v2 thread protocol 501 KEEL_ERR_HTTP_NOT_IMPLEMENTED (after authentication)", async () => {
    const threadId = await createThread(h.app);
    const client = new Client({ apiUrl, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    const joined = (async () => {
      for await (const _ of client.threads.joinStream(threadId)) void _;
    })();
    await expect(joined).rejects.toMatchObject({ status: 501 });
    for (const [method, url] of [
      ["GET", `/threads/${threadId}/stream`],
      ["POST", `/threads/${threadId}/commands`],
      ["POST", `/threads/${threadId}/stream/events`],
      ["GET", `/threads/${threadId}/stream/events`],
    ] as const) {
      const response = await h.app.inject({ method, url, headers: ALICE, ...(method === "POST" ? { payload: {} } : {}) });
      expect([url, response.statusCode, response.json().error]).toEqual([url, 501, "KEEL_ERR_HTTP_NOT_IMPLEMENTED"]);
      expect(response.json().message).toContain("runs.stream");
      expect((await h.app.inject({ method, url, ...(method === "POST" ? { payload: {} } : {}) })).statusCode).toBe(401);
    }
  });
});

describe("paths the router cannot take, long ids and HEAD", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it("serves a thread whose id has 101–128 characters on every route (ids are up to 128), and refuses a longer one with 400 naming it", async () => {
    const id = `t${"x".repeat(127)}`;
    const created = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: id } });
    expect(created.statusCode).toBe(200);
    for (const url of [`/threads/${id}`, `/threads/${id}/state`, `/threads/${id}/runs`]) expect((await h.app.inject({ method: "GET", url, headers: ALICE })).statusCode).toBe(200);
    expect((await h.app.inject({ method: "DELETE", url: `/threads/${id}`, headers: ALICE })).statusCode).toBe(204);
    const longer = await h.app.inject({ method: "GET", url: `/threads/${id}y`, headers: ALICE });
    expect(longer.statusCode).toBe(400);
    expect(longer.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/tid" });
  });

  it("answers a path that is not a valid URL, or a segment over 1,024 characters, 400 in Keel's shape — and 401 to a client without a key", async () => {
    for (const url of ["/threads/%E0%A4%A/state", `/threads/${"y".repeat(1100)}`]) {
      const refused = await h.app.inject({ method: "GET", url, headers: ALICE });
      expect(refused.statusCode).toBe(400);
      const body = refused.json();
      expect(body).toEqual({ error: "KEEL_ERR_HTTP_INVALID_BODY", message: expect.stringMatching(/^invalid path: /), detail: body.message });
      const anonymous = await h.app.inject({ method: "GET", url });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ error: "KEEL_ERR_HTTP_UNAUTHORIZED" });
    }
  });

  it("answers HEAD on the open routes without a key, as GET, and asks for one on the others", async () => {
    for (const url of ["/ok", "/info"]) {
      expect((await h.app.inject({ method: "HEAD", url })).statusCode).toBe(200);
      expect((await h.app.inject({ method: "GET", url })).statusCode).toBe(200);
    }
    expect((await h.app.inject({ method: "HEAD", url: "/threads/x" })).statusCode).toBe(401);
  });
});
