import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, BOB, createThread, startHarness, type Harness } from "./harness.js";

describe("thread and assistant routes", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it("POST /threads creates a thread in LangGraph's shape, with the given id and metadata", async () => {
    const response = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: "t-given", metadata: { topic: "tides" } } });
    expect(response.statusCode).toBe(200);
    const thread = response.json();
    expect(thread).toMatchObject({ thread_id: "t-given", status: "idle", metadata: { topic: "tides" }, values: {}, interrupts: {} });
    expect(Date.parse(thread.created_at)).not.toBeNaN();
    expect(Date.parse(thread.updated_at)).not.toBeNaN();

    const again = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: "t-given" } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: "KEEL_ERR_HTTP_THREAD_EXISTS", pointer: "/thread_id" });
    const doNothing = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: "t-given", if_exists: "do_nothing" } });
    expect(doNothing.statusCode).toBe(200);
    expect(doNothing.json().metadata).toEqual({ topic: "tides" });
    // Another user cannot take over the id with do_nothing.
    const stolen = await h.app.inject({ method: "POST", url: "/threads", headers: BOB, payload: { thread_id: "t-given", if_exists: "do_nothing" } });
    expect(stolen.statusCode).toBe(409);
  });

  it("creates a thread from an empty or bodiless request, with a fresh id", async () => {
    const bodiless = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE });
    const empty = await h.app.inject({ method: "POST", url: "/threads", headers: { ...ALICE, "content-type": "application/json" }, payload: "" });
    expect(bodiless.statusCode).toBe(200);
    expect(empty.statusCode).toBe(200);
    expect(bodiless.json().thread_id).not.toBe(empty.json().thread_id);
  });

  it("GET, state, search and DELETE work for the owner", async () => {
    const threadId = await createThread(h.app);
    const got = await h.app.inject({ method: "GET", url: `/threads/${threadId}`, headers: ALICE });
    expect(got.statusCode).toBe(200);
    expect(got.json().thread_id).toBe(threadId);

    const run = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: { assistant_id: "lead", input: { events: 1 } } });
    expect(run.statusCode).toBe(200);
    const state = await h.app.inject({ method: "GET", url: `/threads/${threadId}/state`, headers: ALICE });
    expect(state.statusCode).toBe(200);
    expect(state.json()).toMatchObject({
      values: { turns: 1 },
      next: [],
      checkpoint: { thread_id: threadId, checkpoint_ns: "" },
      tasks: [],
    });
    expect(state.json().values.messages[0].content).toMatch(/^done /);

    const search = await h.app.inject({ method: "POST", url: "/threads/search", headers: ALICE, payload: { limit: 100 } });
    expect(search.json().map((t: { thread_id: string }) => t.thread_id)).toContain(threadId);

    const deleted = await h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE });
    expect(deleted.statusCode).toBe(204);
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}`, headers: ALICE })).statusCode).toBe(404);
  });

  it("POST /threads/search filters by metadata and pages", async () => {
    for (const n of [1, 2, 3]) {
      await h.app.inject({ method: "POST", url: "/threads", headers: BOB, payload: { metadata: { batch: "s", n } } });
    }
    const byMeta = await h.app.inject({ method: "POST", url: "/threads/search", headers: BOB, payload: { metadata: { n: 2 } } });
    expect(byMeta.json().map((t: { metadata: { n: number } }) => t.metadata.n)).toEqual([2]);
    const page = await h.app.inject({ method: "POST", url: "/threads/search", headers: BOB, payload: { metadata: { batch: "s" }, limit: 2, offset: 1 } });
    expect(page.json()).toHaveLength(2);
  });

  it("DELETE cancels the thread's active run before deleting it", async () => {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: { assistant_id: "lead", input: "hang" } })).json();
    const deleted = await h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE });
    expect(deleted.statusCode).toBe(204);
    expect(await h.store.getThread(threadId)).toBeNull();
    // The run was told to stop and ended before the purge; its record and stream went with the thread.
    expect(h.executor.finished.has(run.run_id)).toBe(true);
    expect(await h.store.getRun(run.run_id)).toBeNull();
    expect(await h.bridge.read(run.run_id)).toEqual([]);
  });

  it("serves one assistant per stack", async () => {
    const search = await h.app.inject({ method: "POST", url: "/assistants/search", headers: ALICE, payload: {} });
    expect(search.statusCode).toBe(200);
    expect(search.json().map((a: { assistant_id: string }) => a.assistant_id)).toEqual(["lead", "subagent"]);
    expect(search.json()[0]).toMatchObject({ assistant_id: "lead", graph_id: "lead", name: "lead", version: 1, config: {}, metadata: {} });
    const byGraph = await h.app.inject({ method: "POST", url: "/assistants/search", headers: ALICE, payload: { graph_id: "subagent" } });
    expect(byGraph.json().map((a: { assistant_id: string }) => a.assistant_id)).toEqual(["subagent"]);
    const limited = await h.app.inject({ method: "POST", url: "/assistants/search", headers: ALICE, payload: { limit: 1, offset: 1 } });
    expect(limited.json().map((a: { assistant_id: string }) => a.assistant_id)).toEqual(["subagent"]);

    const one = await h.app.inject({ method: "GET", url: "/assistants/lead", headers: ALICE });
    expect(one.statusCode).toBe(200);
    expect(one.json().assistant_id).toBe("lead");
    const missing = await h.app.inject({ method: "GET", url: "/assistants/nope", headers: ALICE });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe("KEEL_ERR_HTTP_NOT_FOUND");
  });

  it("GET / serves the run inspector's shell and bundle without a key, and no user's data", async () => {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: { assistant_id: "lead" } })).headers["content-location"] as string;
    const page = await h.app.inject({ method: "GET", url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.body).toContain('<script type="module" src="/inspector/app.js?v=');
    expect(page.body).not.toContain(run.split("/").at(-1));
    expect(page.body).not.toContain(threadId);
    for (const [path, type] of [["/inspector/app.js", /javascript/], ["/inspector/app.css", /text\/css/]] as const) {
      const asset = await h.app.inject({ method: "GET", url: `${path}?v=x` });
      expect(asset.statusCode, path).toBe(200);
      expect(asset.headers["content-type"]).toMatch(type);
      expect(asset.body.length).toBeGreaterThan(100);
      const again = await h.app.inject({ method: "GET", url: path, headers: { "if-none-match": asset.headers.etag as string } });
      expect(again.statusCode).toBe(304);
    }
    // The data the page shows comes through the keyed routes.
    expect((await h.app.inject({ method: "POST", url: "/threads/search", payload: {} })).statusCode).toBe(401);
  });

  it("a gateway without a checkpoint reader answers the checkpoint routes 501 and creates no thread from supersteps", async () => {
    const threadId = await createThread(h.app);
    for (const [method, url, payload] of [
      ["POST", `/threads/${threadId}/history`, {}],
      ["GET", `/threads/${threadId}/state/1f000000-0000-6000-8000-000000000000`, undefined],
      ["POST", `/threads/${threadId}/state`, { values: { messages: [] } }],
      ["POST", `/threads/${threadId}/copy`, undefined],
    ] as const) {
      const response = await h.app.inject({ method, url, headers: ALICE, ...(payload ? { payload } : {}) });
      expect(response.statusCode, url).toBe(501);
      expect(response.json().error).toBe("KEEL_ERR_HTTP_THREAD_STATE_UNAVAILABLE");
    }
    const seeded = await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: "t-seeded", supersteps: [{ updates: [{ values: {}, as_node: "agent" }] }] } });
    expect(seeded.statusCode).toBe(501);
    expect((await h.app.inject({ method: "GET", url: "/threads/t-seeded", headers: ALICE })).statusCode).toBe(404);
    // The state route still answers from the executor.
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/state`, headers: ALICE })).json()).toMatchObject({ values: {}, next: [] });
  });
});
