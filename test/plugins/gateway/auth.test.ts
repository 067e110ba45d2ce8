import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiKeys, LOCAL_USER } from "../../../plugins/gateway/index.js";
import { ALICE, BOB, createThread, startHarness, type Harness } from "./harness.js";

describe("gateway auth", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  it("GET /ok and GET /info answer without a key; /info names the version and stacks", async () => {
    const ok = await h.app.inject({ method: "GET", url: "/ok" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
    const info = await h.app.inject({ method: "GET", url: "/info" });
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ version: "9.9.9-test", stacks: ["lead", "subagent"] });
    // The host did not say which model it runs.
    expect(info.json().model).toBeNull();
  });

  it("answers 401 with a coded JSON error for a missing or unknown key", async () => {
    for (const headers of [{}, { "x-api-key": "nope" }, { authorization: "Bearer nope" }, { authorization: "Basic a2V5LWFsaWNl" }]) {
      const response = await h.app.inject({ method: "POST", url: "/threads", headers, payload: {} });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: "KEEL_ERR_HTTP_UNAUTHORIZED" });
      expect(typeof response.json().message).toBe("string");
    }
    for (const url of ["/threads/t1", "/threads/t1/runs", "/no/such/route", "/inspector/other.js"]) {
      expect((await h.app.inject({ method: "GET", url })).statusCode).toBe(401);
    }
  });

  it("accepts the key as x-api-key and as Authorization: Bearer", async () => {
    expect((await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: {} })).statusCode).toBe(200);
    expect((await h.app.inject({ method: "POST", url: "/threads", headers: BOB, payload: {} })).statusCode).toBe(200);
  });

  it("gives another user 404 for a thread and its runs, and never lists it", async () => {
    const threadId = await createThread(h.app, ALICE);
    const created = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: { assistant_id: "lead", input: { events: 1 } } });
    expect(created.statusCode).toBe(200);
    const runId = created.json().run_id as string;
    await h.runs.join(runId);

    const asBob = (method: "GET" | "POST" | "DELETE", url: string, payload?: object) => h.app.inject({ method, url, headers: BOB, ...(payload ? { payload } : {}) });
    const attempts = [
      await asBob("GET", `/threads/${threadId}`),
      await asBob("GET", `/threads/${threadId}/state`),
      await asBob("DELETE", `/threads/${threadId}`),
      await asBob("GET", `/threads/${threadId}/runs`),
      await asBob("POST", `/threads/${threadId}/runs`, { assistant_id: "lead" }),
      await asBob("POST", `/threads/${threadId}/runs/wait`, { assistant_id: "lead" }),
      await asBob("POST", `/threads/${threadId}/runs/stream`, { assistant_id: "lead" }),
      await asBob("GET", `/threads/${threadId}/runs/${runId}`),
      await asBob("GET", `/threads/${threadId}/runs/${runId}/join`),
      await asBob("GET", `/threads/${threadId}/runs/${runId}/stream`),
      await asBob("POST", `/threads/${threadId}/runs/${runId}/cancel`),
      await asBob("GET", `/threads/${threadId}/runs/${runId}/report`),
      await asBob("GET", `/threads/${threadId}/runs/${runId}/journal`),
    ];
    for (const response of attempts) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().error).toBe("KEEL_ERR_HTTP_NOT_FOUND");
    }
    const search = await asBob("POST", "/threads/search", {});
    expect(search.json()).toEqual([]);
    // Alice still has everything.
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}`, headers: ALICE })).statusCode).toBe(200);
  });
});

describe("gateway without API keys", () => {
  it("serves every request as the local user", async () => {
    const h = await startHarness({ keys: false });
    try {
      const response = await h.app.inject({ method: "POST", url: "/threads", payload: {} });
      expect(response.statusCode).toBe(200);
      const thread = await h.store.getThread(response.json().thread_id);
      expect(thread?.owner).toBe(LOCAL_USER);
    } finally {
      await h.close();
    }
  });
});

describe("ApiKeys.parse", () => {
  it("reads key:user pairs and refuses malformed entries", () => {
    const keys = ApiKeys.parse(" k1:alice , k2:bob,");
    expect(keys.size).toBe(2);
    expect(keys.authenticate({ "x-api-key": "k2" })).toBe("bob");
    expect(keys.authenticate({ authorization: "bearer k1" })).toBe("alice");
    expect(() => ApiKeys.parse("justakey")).toThrow(/KEEL_API_KEYS|key:user/);
    expect(() => ApiKeys.parse("k1:")).toThrow(/key:user/);
    expect(ApiKeys.parse(undefined).size).toBe(0);
  });
});
