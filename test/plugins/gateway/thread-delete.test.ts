/**
 * `DELETE /threads/:tid` purges (docs/http.md, "Guarantees"):
 * reads answer 404 at once, new runs are refused, active runs are cancelled and the answer
 * comes once they ended (204; 202 after `deleteWaitMs` with the purge finishing in the
 * background); a thread re-created with the same id starts empty. Creating an existing id
 * answers 409 whoever owns it; any other access to another user's thread is 404.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, BOB, createThread, startHarness, until, type Harness } from "./harness.js";

const runBody = (input: unknown) => ({ assistant_id: "lead", input, on_disconnect: "continue" });

describe("DELETE /threads/:tid", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it("answers 204 only after the thread's long-running run ended; meanwhile every read is 404 and new runs are refused", async () => {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: runBody("stubborn") })).json();
    await until(() => h.executor.isWaiting(run.run_id), "the run started");

    let answered = false;
    const deleting = h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE }).then((r) => ((answered = true), r));
    await until(async () => (await h.store.getThread(threadId)) === null, "the deletion mark");
    for (const url of [`/threads/${threadId}`, `/threads/${threadId}/state`, `/threads/${threadId}/runs`, `/threads/${threadId}/runs/${run.run_id}`]) {
      const read = await h.app.inject({ method: "GET", url, headers: ALICE });
      expect([url, read.statusCode]).toEqual([url, 404]);
    }
    const refused = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: { ...runBody("x"), multitask_strategy: "enqueue" } });
    expect(refused.statusCode).toBe(404);
    // The run ignores its cancel until released: the delete waits for it.
    await until(async () => (await h.store.getRun(run.run_id)) !== null && h.executor.isWaiting(run.run_id), "the cancel reached a still running run");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    expect((await h.store.getRun(run.run_id))?.status).toBe("running");

    h.executor.release(run.run_id);
    const deleted = await deleting;
    expect(deleted.statusCode).toBe(204);
    expect(h.executor.finished.has(run.run_id)).toBe(true);
    expect(await h.store.getRun(run.run_id)).toBeNull();
    expect(await h.bridge.read(run.run_id)).toEqual([]);
    expect(h.executor.purged.filter((p) => p.threadId === threadId)).toEqual([{ threadId, checkpointThreads: [threadId] }]);
    expect(await h.store.deletedThreads()).not.toContain(threadId);
  });

  it("a thread re-created with the same id — by anyone — starts empty: no state, no runs, no old run, no old stream", async () => {
    const threadId = `reuse-${Date.now()}`;
    expect((await h.app.inject({ method: "POST", url: "/threads", headers: ALICE, payload: { thread_id: threadId } })).statusCode).toBe(200);
    const waited = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: runBody({ events: 3 }) });
    expect(waited.statusCode).toBe(200);
    const oldRunId = (waited.headers["content-location"] as string).split("/").at(-1)!;
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/state`, headers: ALICE })).json().values.turns).toBe(3);
    expect((await h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE })).statusCode).toBe(204);

    const again = await h.app.inject({ method: "POST", url: "/threads", headers: BOB, payload: { thread_id: threadId } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ thread_id: threadId, values: {}, status: "idle" });
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/state`, headers: BOB })).json().values).toEqual({});
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs`, headers: BOB })).json()).toEqual([]);
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${oldRunId}`, headers: BOB })).statusCode).toBe(404);
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${oldRunId}/stream`, headers: BOB })).statusCode).toBe(404);
    expect(await h.bridge.read(oldRunId)).toEqual([]);
    // And the old owner no longer sees it.
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}`, headers: ALICE })).statusCode).toBe(404);
  });

  it("creating an existing id is 409 whoever owns it; any other access to another user's thread is 404", async () => {
    const threadId = await createThread(h.app, ALICE);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: runBody({ events: 1 }) })).headers["content-location"] as string;
    for (const if_exists of [undefined, "raise", "do_nothing"]) {
      const taken = await h.app.inject({ method: "POST", url: "/threads", headers: BOB, payload: { thread_id: threadId, ...(if_exists ? { if_exists } : {}) } });
      expect([if_exists, taken.statusCode, taken.json().error]).toEqual([if_exists, 409, "KEEL_ERR_HTTP_THREAD_EXISTS"]);
    }
    const bobs: Array<[string, string, object?]> = [
      ["GET", `/threads/${threadId}`],
      ["DELETE", `/threads/${threadId}`],
      ["GET", `/threads/${threadId}/state`],
      ["GET", `/threads/${threadId}/runs`],
      ["POST", `/threads/${threadId}/runs`, runBody("x")],
      ["GET", run],
      ["GET", `${run}/join`],
      ["GET", `${run}/stream`],
      ["POST", `${run}/cancel`],
    ];
    for (const [method, url, payload] of bobs) {
      const answer = await h.app.inject({ method: method as "GET", url, headers: BOB, ...(payload ? { payload } : {}) });
      expect([method, url, answer.statusCode, answer.json().error]).toEqual([method, url, 404, "KEEL_ERR_HTTP_NOT_FOUND"]);
    }
    expect(await h.store.getThread(threadId)).not.toBeNull();
  });

  it("with 30 run creations racing 30 deletes, every run is either refused or cancelled and purged", async () => {
    const pairs = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const threadId = await createThread(h.app);
        const [created, deleted] = await Promise.all([
          h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: runBody(i % 2 === 0 ? "hang" : { events: 1 }) }),
          // Half the deletes start a turn later, so both orders happen.
          (i % 3 === 0 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve()).then(() => h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE })),
        ]);
        return { threadId, created, deleted };
      }),
    );
    let admitted = 0;
    let refused = 0;
    for (const { threadId, created, deleted } of pairs) {
      expect(deleted.statusCode).toBe(204);
      expect(await h.store.getThread(threadId)).toBeNull();
      expect(await h.store.listRuns(threadId, { limit: 10, offset: 0 })).toEqual([]);
      if (created.statusCode === 200) {
        admitted++;
        const runId = created.json().run_id as string;
        // Admitted before the mark: cancelled (or finished) before the purge, then removed with everything else.
        expect(await h.store.getRun(runId)).toBeNull();
        expect(await h.bridge.read(runId)).toEqual([]);
        expect(!h.executor.started.includes(runId) || h.executor.finished.has(runId)).toBe(true);
        expect(h.executor.purged.some((p) => p.threadId === threadId)).toBe(true);
      } else {
        refused++;
        expect(created.statusCode).toBe(404);
        expect(["KEEL_ERR_HTTP_NOT_FOUND", "KEEL_ERR_HTTP_THREAD_DELETED"]).toContain(created.json().error);
      }
    }
    expect(admitted + refused).toBe(30);
    expect(await h.store.deletedThreads()).toEqual([]);
  });
});

describe("DELETE /threads/:tid past the wait", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ deleteWaitMs: 50 });
  });
  afterAll(async () => h.close());

  it("answers 202 when the run outlasts deleteWaitMs, and the purge finishes in the background once it ended", async () => {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: runBody("stubborn") })).json();
    await until(() => h.executor.isWaiting(run.run_id), "the run started");
    const deleted = await h.app.inject({ method: "DELETE", url: `/threads/${threadId}`, headers: ALICE });
    expect(deleted.statusCode).toBe(202);
    expect((await h.app.inject({ method: "GET", url: `/threads/${threadId}`, headers: ALICE })).statusCode).toBe(404);
    expect(await h.store.getRun(run.run_id)).not.toBeNull(); // nothing purged under a live run
    h.executor.release(run.run_id);
    await until(async () => (await h.store.getRun(run.run_id)) === null && (await h.store.deletedThreads()).length === 0, "the background purge");
    expect(h.executor.finished.has(run.run_id)).toBe(true);
    expect(await h.bridge.read(run.run_id)).toEqual([]);
  });
});

describe("thread ownership through @langchain/langgraph-sdk", () => {
  let h: Harness;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    h = await startHarness();
    const url = await h.app.listen({ port: 0, host: "127.0.0.1" });
    alice = new Client({ apiUrl: url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    bob = new Client({ apiUrl: url, apiKey: "key-bob", callerOptions: { maxRetries: 0 } });
  });
  afterAll(async () => h.close());

  it("409 for another user's id, 404 for their reads; after the delete the id is free for anyone and empty", async () => {
    const threadId = `sdk-${Date.now()}`;
    await alice.threads.create({ threadId });
    await alice.runs.wait(threadId, "lead", { input: { events: 2 } });
    await expect(bob.threads.create({ threadId })).rejects.toMatchObject({ status: 409 });
    await expect(bob.threads.create({ threadId, ifExists: "do_nothing" })).rejects.toMatchObject({ status: 409 });
    expect((await alice.threads.create({ threadId, ifExists: "do_nothing" })).thread_id).toBe(threadId);
    await expect(bob.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
    await expect(bob.threads.delete(threadId)).rejects.toMatchObject({ status: 404 });
    await expect(bob.runs.list(threadId)).rejects.toMatchObject({ status: 404 });

    await alice.threads.delete(threadId);
    await expect(alice.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
    const reborn = await bob.threads.create({ threadId });
    expect(reborn.thread_id).toBe(threadId);
    expect(await bob.runs.list(threadId)).toEqual([]);
    expect((await bob.threads.getState(threadId)).values).toEqual({});
  });
});
