/**
 * Custom auth the LangGraph way (docs/http.md, "Custom auth (the LangGraph way)"):
 * a LangGraph `Auth` instance (or a plain `{ authenticate, authorize }`) names each request's
 * user and authorizes each action; Keel's ownership still holds on top, and a refused or
 * filtered-out action on an existing resource is the same 404 as another user's.
 */
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys, createGateway } from "../../../plugins/gateway/index.js";
import { toAuthHandler, type AuthHandler } from "../../../plugins/gateway/auth-handler.js";
import { startHarness, type Harness } from "./harness.js";

interface Person {
  identity: string;
  permissions: string[];
  team: string;
}
const PEOPLE: Record<string, Person> = {
  "tok-alice": { identity: "alice", permissions: ["threads:write", "runs:write"], team: "red" },
  "tok-bob": { identity: "bob", permissions: [], team: "red" },
  "tok-carol": { identity: "carol", permissions: ["threads:write"], team: "blue" },
};

/** The handler a user writes: tokens → people; threads carry their team; teams filter reads. */
const langGraphAuth = new Auth()
  .authenticate(async (request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "");
    const person = token ? PEOPLE[token] : undefined;
    if (!person) throw new HTTPException(401, { message: "no such token" });
    return person;
  })
  .on("threads:create", ({ user, value, permissions }) => {
    if (!permissions.includes("threads:write")) return false;
    const metadata = (value.metadata ??= {}) as Record<string, unknown>;
    metadata.team ??= (user as unknown as Person).team;
    metadata.created_by = user.identity;
    return undefined;
  })
  .on("threads:create_run", ({ permissions }) => permissions.includes("runs:write"))
  .on("threads:search", ({ user, value }) => {
    if ((value as { metadata?: Record<string, unknown> }).metadata?.forbidden === true) throw new HTTPException(403, { message: "no" });
    return { team: (user as unknown as Person).team };
  })
  .on("threads", ({ user }) => ({ team: { $eq: (user as unknown as Person).team } }))
  .on("assistants:read", ({ value }) => (value as { assistant_id?: string }).assistant_id !== "subagent");

describe("custom auth handler (a LangGraph Auth instance)", () => {
  let h: Harness;
  let apiUrl: string;
  const as = (token: string) => new Client({ apiUrl, defaultHeaders: { authorization: `Bearer ${token}` } });
  beforeAll(async () => {
    h = await startHarness({ keys: false, gateway: { auth: toAuthHandler(langGraphAuth) } });
    apiUrl = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  it("authenticates with the handler: its identity owns what it creates, and its 401 (message included) is answered with detail", async () => {
    const thread = await as("tok-alice").threads.create({ metadata: { topic: "a" } });
    expect(thread.metadata).toEqual({ topic: "a", team: "red", created_by: "alice" });
    expect((await h.store.getThread(thread.thread_id))?.owner).toBe("alice");

    for (const headers of [{}, { authorization: "Bearer nope" }]) {
      const refused = await fetch(`${apiUrl}/threads`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "KEEL_ERR_HTTP_UNAUTHORIZED", message: "no such token", detail: "no such token" });
    }
    // Unknown routes are not probed anonymously with a handler either.
    expect((await fetch(`${apiUrl}/no/such/route`)).status).toBe(401);
    // Open routes need nothing.
    expect((await fetch(`${apiUrl}/info`)).status).toBe(200);
  });

  it("a `false` on a create is 403 KEEL_ERR_HTTP_FORBIDDEN naming the event; on a run of one's own thread it is the thread's 404", async () => {
    const refused = await fetch(`${apiUrl}/threads`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer tok-bob" }, body: "{}" });
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body).toMatchObject({ error: "KEEL_ERR_HTTP_FORBIDDEN", message: expect.stringContaining("threads:create") });
    expect(body.detail).toBe(body.message);

    const carol = as("tok-carol");
    const thread = await carol.threads.create();
    await expect(carol.runs.create(thread.thread_id, "lead", { input: { events: 1 } })).rejects.toMatchObject({ status: 404 });
    expect(await h.store.listRuns(thread.thread_id, { limit: 10, offset: 0 })).toEqual([]);

    const alice = as("tok-alice");
    const own = await alice.threads.create();
    const run = await alice.runs.create(own.thread_id, "lead", { input: { events: 1 }, metadata: { k: 1 } });
    expect((await alice.runs.join(own.thread_id, run.run_id)) as Record<string, unknown>).toMatchObject({ turns: 1 });
  });

  it("filters: a thread whose metadata does not match the handler's filter is a 404 on every route, and searches leave it out", async () => {
    const alice = as("tok-alice");
    const red = await alice.threads.create({ metadata: { n: 1 } });
    const blue = await alice.threads.create({ metadata: { team: "blue", n: 2 } });
    expect(blue.metadata).toMatchObject({ team: "blue" });
    expect((await alice.threads.get(red.thread_id)).thread_id).toBe(red.thread_id);
    await expect(alice.threads.get(blue.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(alice.threads.getState(blue.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(alice.threads.delete(blue.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(alice.runs.list(blue.thread_id)).rejects.toMatchObject({ status: 404 });
    // A run on it (`threads:create_run` has no filter) is not read through either route either.
    const run = await alice.runs.create(blue.thread_id, "lead", { input: { events: 1 } });
    const rejoin = async (threadId: string | null) => {
      for await (const _ of alice.runs.joinStream(threadId, run.run_id)) void _;
    };
    await expect(rejoin(blue.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(rejoin(null)).rejects.toMatchObject({ status: 404 });
    const found = await alice.threads.search({ limit: 100 });
    expect(found.map((t) => t.thread_id)).toContain(red.thread_id);
    expect(found.map((t) => t.thread_id)).not.toContain(blue.thread_id);
    // A search asking for another team conflicts with the filter: nothing.
    expect(await alice.threads.search({ metadata: { team: "blue" } })).toEqual([]);
    // A handler's thrown 403 on a search is a 403.
    await expect(alice.threads.search({ metadata: { forbidden: true } })).rejects.toMatchObject({ status: 403 });
  });

  it("another user's thread stays a 404 even when the handler's filter matches (Keel's ownership holds on top)", async () => {
    const thread = await as("tok-alice").threads.create();
    const bob = as("tok-bob"); // same team, so the filter matches
    await expect(bob.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.threads.getState(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    expect((await bob.threads.search()).map((t) => t.thread_id)).not.toContain(thread.thread_id);
  });

  it("assistants: a refused read is a 404, like a missing assistant; the others are served", async () => {
    const alice = as("tok-alice");
    expect((await alice.assistants.get("lead")).assistant_id).toBe("lead");
    await expect(alice.assistants.get("subagent")).rejects.toMatchObject({ status: 404 });
  });
});

describe("custom auth handler (a plain object) and its misuse", () => {
  it("takes `{ authenticate, authorize }`; a string identity works; a bad authorize result is a 500 naming the handler", async () => {
    const handler: AuthHandler = {
      authenticate: (request) => request.headers.get("x-user") ?? Promise.reject(Object.assign(new Error("who?"), { status: 401 })),
      authorize: ({ action }) => (action === "search" ? (42 as unknown as boolean) : true),
    };
    const h = await startHarness({ keys: false, gateway: { auth: toAuthHandler(handler) } });
    try {
      const created = await h.app.inject({ method: "POST", url: "/threads", headers: { "x-user": "dora" }, payload: {} });
      expect(created.statusCode).toBe(200);
      expect((await h.store.getThread(created.json().thread_id))?.owner).toBe("dora");
      const anonymous = await h.app.inject({ method: "POST", url: "/threads", payload: {} });
      expect([anonymous.statusCode, anonymous.json().message]).toEqual([401, "who?"]);
      const broken = await h.app.inject({ method: "POST", url: "/threads/search", headers: { "x-user": "dora" }, payload: {} });
      expect(broken.statusCode).toBe(500);
      expect(broken.json()).toMatchObject({ error: "KEEL_ERR_AUTH_HANDLER_INVALID", message: expect.stringContaining("threads:search") });
    } finally {
      await h.close();
    }
  });

  it("an authenticate that returns no identity is a 500 KEEL_ERR_AUTH_HANDLER_INVALID", async () => {
    const h = await startHarness({ keys: false, gateway: { auth: toAuthHandler({ authenticate: () => ({ name: "x" }) as never }) } });
    try {
      const response = await h.app.inject({ method: "GET", url: "/threads/t1" });
      expect(response.statusCode).toBe(500);
      expect(response.json().error).toBe("KEEL_ERR_AUTH_HANDLER_INVALID");
    } finally {
      await h.close();
    }
  });

  it("refuses a module export that is no handler, and API keys together with a handler", async () => {
    expect(() => toAuthHandler({ nope: true }, "auth.mjs")).toThrow(expect.objectContaining({ code: "KEEL_ERR_AUTH_HANDLER_INVALID", message: expect.stringContaining("auth.mjs") }));
    expect(() => toAuthHandler(new Auth())).toThrow(expect.objectContaining({ code: "KEEL_ERR_AUTH_HANDLER_INVALID" }));
    const h = await startHarness({ keys: false });
    try {
      await expect(
        createGateway({ deps: { runs: h.runs, store: h.store, bridge: h.bridge }, stacks: ["lead"], version: "0", apiKeys: new ApiKeys([["k", "u"]]), auth: toAuthHandler(langGraphAuth) }),
      ).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID" });
    } finally {
      await h.close();
    }
  });
});
