import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { project, upgrade } from "../../../contracts/upgrade.js";
import { validRunReport, validRunReportV2 } from "../../contracts/fixtures.js";
import { ALICE, BOB, createThread, startHarness, until, type Harness } from "./harness.js";

describe("run routes", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  const post = (url: string, payload?: unknown, headers: Record<string, string> = ALICE) =>
    h.app.inject({ method: "POST", url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const get = (url: string, headers: Record<string, string> = ALICE) => h.app.inject({ method: "GET", url, headers });

  it("POST /threads/:tid/runs answers a LangGraph Run with Content-Location; the record gets its outcome at the end", async () => {
    const threadId = await createThread(h.app);
    const response = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: { events: 3 }, metadata: { source: "test" }, some_future_field: "ignored", durability: "async" });
    expect(response.statusCode).toBe(200);
    const run = response.json();
    expect(run).toMatchObject({ thread_id: threadId, assistant_id: "lead", metadata: { source: "test" }, multitask_strategy: "reject" });
    expect(["pending", "running"]).toContain(run.status);
    expect(run.kwargs).toMatchObject({ input: { events: 3 }, on_disconnect: "cancel" });
    expect(typeof run.run_id).toBe("string");
    expect(Date.parse(run.created_at)).not.toBeNaN();
    expect(Date.parse(run.updated_at)).not.toBeNaN();
    expect(response.headers["content-location"]).toBe(`/threads/${threadId}/runs/${run.run_id}`);

    const joined = await get(`/threads/${threadId}/runs/${run.run_id}/join`);
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toMatchObject({ turns: 3, messages: [{ content: `done ${run.run_id}` }] });

    const final = (await get(`/threads/${threadId}/runs/${run.run_id}`)).json();
    expect(final.status).toBe("success");
    expect(final.outcome).toMatchObject({ contract: "status", version: 2, status: "succeeded", text: `done ${run.run_id}` });

    const list = await get(`/threads/${threadId}/runs`);
    expect(list.json().map((r: { run_id: string }) => r.run_id)).toEqual([run.run_id]);
    expect((await get(`/threads/${threadId}/runs?status=error`)).json()).toEqual([]);
  });

  it("POST /runs/wait answers the final values only after the run's end", async () => {
    const threadId = await createThread(h.app);
    let answered = false;
    const waiting = post(`/threads/${threadId}/runs/wait`, { assistant_id: "lead", input: "gate" }).then((r) => {
      answered = true;
      return r;
    });
    const runId = await until(async () => (await h.store.listRuns(threadId, { limit: 1, offset: 0 }))[0]?.runId, "the run");
    await until(() => h.executor.isWaiting(runId), "the run to start");
    // Still running: the wait has not answered.
    expect(answered).toBe(false);
    expect((await h.store.getRun(runId))?.status).toBe("running");
    h.executor.release(runId);
    const response = await waiting;
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-location"]).toBe(`/threads/${threadId}/runs/${runId}`);
    expect(response.json().messages[0].content).toBe(`done ${runId}`);
    // Answered after `end`: the record is terminal by then.
    expect((await h.store.getRun(runId))?.status).toBe("success");
  });

  it("/wait of a failed run carries LangGraph's __error__, so the SDK raises", async () => {
    const threadId = await createThread(h.app);
    const response = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "lead", input: "fail" });
    expect(response.statusCode).toBe(200);
    expect(response.json().__error__).toMatchObject({ error: "executor_failed", message: "scripted failure" });
  });

  it("rejects a second run on a busy thread with 409 (reject is the default); enqueue waits its turn", async () => {
    const threadId = await createThread(h.app);
    const first = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "gate" })).json();
    const second = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: { events: 1 } });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ error: "KEEL_ERR_HTTP_RUN_ACTIVE" });
    expect(second.json().message).toContain(first.run_id);

    const queued = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: { events: 1 }, multitask_strategy: "enqueue" });
    expect(queued.statusCode).toBe(200);
    expect(queued.json().status).toBe("pending");
    await until(() => h.executor.isWaiting(first.run_id), "the first run");
    h.executor.release(first.run_id);
    const done = await get(`/threads/${threadId}/runs/${queued.json().run_id}/join`);
    expect(done.statusCode).toBe(200);
    expect((await get(`/threads/${threadId}/runs/${queued.json().run_id}`)).json().status).toBe("success");
  });

  it("interrupt cancels the active run and starts the new one", async () => {
    const threadId = await createThread(h.app);
    const first = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "hang" })).json();
    const second = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: { events: 1 }, multitask_strategy: "interrupt" });
    expect(second.statusCode).toBe(200);
    await get(`/threads/${threadId}/runs/${second.json().run_id}/join`);
    const firstRecord = (await get(`/threads/${threadId}/runs/${first.run_id}`)).json();
    expect(firstRecord.status).toBe("interrupted");
    expect(firstRecord.outcome.status).toBe("cancelled");
  });

  it("cancel answers 202, or 204 after the end with wait=1; the run ends interrupted", async () => {
    const threadId = await createThread(h.app);
    const a = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "hang" })).json();
    const accepted = await post(`/threads/${threadId}/runs/${a.run_id}/cancel`);
    expect(accepted.statusCode).toBe(202);
    expect(accepted.body).toBe("");
    await h.runs.join(a.run_id);
    expect((await get(`/threads/${threadId}/runs/${a.run_id}`)).json().status).toBe("interrupted");

    const b = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "hang" })).json();
    const waited = await post(`/threads/${threadId}/runs/${b.run_id}/cancel?wait=1&action=interrupt`);
    expect(waited.statusCode).toBe(204);
    // wait=1 answered after the end: the record is already terminal.
    expect((await h.store.getRun(b.run_id))?.status).toBe("interrupted");

    const bad = await post(`/threads/${threadId}/runs/${b.run_id}/cancel?action=explode`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/action" });
  });

  it("a rollback cancel restores the pre-run state", async () => {
    const threadId = await createThread(h.app);
    await post(`/threads/${threadId}/runs/wait`, { assistant_id: "lead", input: { events: 1 } });
    const before = (await get(`/threads/${threadId}/state`)).json().values;
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "gate" })).json();
    await until(() => h.executor.isWaiting(run.run_id), "the run");
    const cancelled = await post(`/threads/${threadId}/runs/${run.run_id}/cancel?wait=1&action=rollback`);
    expect(cancelled.statusCode).toBe(204);
    expect((await get(`/threads/${threadId}/state`)).json().values).toEqual(before);
  });

  it("refuses a user's ninth active run with 429", async () => {
    const threads = [];
    for (let i = 0; i < 9; i++) threads.push(await createThread(h.app, BOB));
    const runIds: string[] = [];
    for (const threadId of threads.slice(0, 8)) {
      const response = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "hang" }, BOB);
      expect(response.statusCode).toBe(200);
      runIds.push(response.json().run_id);
    }
    const ninth = await post(`/threads/${threads[8]}/runs`, { assistant_id: "lead", input: "hang" }, BOB);
    expect(ninth.statusCode).toBe(429);
    expect(ninth.json().error).toBe("KEEL_ERR_HTTP_TOO_MANY_RUNS");
    // Alice is not limited by Bob's runs.
    const alices = await post(`/threads/${await createThread(h.app)}/runs`, { assistant_id: "lead", input: { events: 1 } });
    expect(alices.statusCode).toBe(200);
    for (const [i, runId] of runIds.entries()) await post(`/threads/${threads[i]}/runs/${runId}/cancel?wait=1`, undefined, BOB);
    expect((await post(`/threads/${threads[8]}/runs`, { assistant_id: "lead", input: { events: 1 } }, BOB)).statusCode).toBe(200);
  });

  it("answers 400 with the JSON pointer of the bad value; unknown fields are ignored", async () => {
    const threadId = await createThread(h.app);
    const cases: [unknown, string][] = [
      [{}, "/assistant_id"],
      [{ assistant_id: "lead", multitask_strategy: "sometimes" }, "/multitask_strategy"],
      [{ assistant_id: "lead", stream_mode: ["values", "not-a-mode"] }, "/stream_mode"],
      [{ assistant_id: "lead", on_disconnect: "explode" }, "/on_disconnect"],
      [{ assistant_id: "lead", config: "not an object" }, "/config"],
      [{ assistant_id: "lead", context: { max_turns: 0 } }, "/context/max_turns"],
    ];
    for (const [payload, pointer] of cases) {
      const response = await post(`/threads/${threadId}/runs`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toBe("KEEL_ERR_HTTP_INVALID_BODY");
      expect(response.json().pointer.startsWith(pointer), `${response.json().pointer} for ${JSON.stringify(payload)}`).toBe(true);
    }
    const broken = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: { ...ALICE, "content-type": "application/json" }, payload: "{not json" });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "" });
    const text = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: { ...ALICE, "content-type": "text/plain" }, payload: "hi" });
    expect(text.statusCode).toBe(415);
    expect(text.json().error).toBe("KEEL_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE");
    const unknownAssistant = await post(`/threads/${threadId}/runs`, { assistant_id: "nobody" });
    expect(unknownAssistant.statusCode).toBe(404);
    // Nothing was admitted by any of these.
    expect(await h.store.listRuns(threadId, { limit: 10, offset: 0 })).toEqual([]);
  });

  it("answers 413 for a body over 1 MiB, and nothing is admitted", async () => {
    const threadId = await createThread(h.app);
    const response = await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "x".repeat(1024 * 1024) });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toBe("KEEL_ERR_HTTP_BODY_TOO_LARGE");
    expect(await h.store.listRuns(threadId, { limit: 10, offset: 0 })).toEqual([]);
  });

  it("unknown routes are a coded 404", async () => {
    const response = await get("/threads/x/y/z");
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe("KEEL_ERR_HTTP_NOT_FOUND");
  });

  it("serves the run report once the run ended, and the journal", async () => {
    const threadId = await createThread(h.app);
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: "gate" })).json();
    const early = await get(`/threads/${threadId}/runs/${run.run_id}/report`);
    expect(early.statusCode).toBe(404);
    await until(() => h.executor.isWaiting(run.run_id), "the run");
    h.executor.release(run.run_id);
    await get(`/threads/${threadId}/runs/${run.run_id}/join`);
    const report = await get(`/threads/${threadId}/runs/${run.run_id}/report`);
    expect(report.statusCode).toBe(200);
    expect(report.json()).toMatchObject({ contract: "run-report", version: 1, runId: run.run_id, outcome: { status: "succeeded" } });
    const journal = await get(`/threads/${threadId}/runs/${run.run_id}/journal`);
    expect(journal.statusCode).toBe(200);
    const entries = journal.json() as { runId: string; kind: string; seq: number }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.runId === run.run_id)).toBe(true);
    expect(entries.some((e) => e.kind === "model_call")).toBe(true);
  });

  it("serves run-report@2 by default and @1 with ?version=1, whichever version the store holds; another version is a 400 naming 1 and 2", async () => {
    const threadId = await createThread(h.app);
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "lead", input: { events: 0 } })).json();
    await get(`/threads/${threadId}/runs/${run.run_id}/join`);
    const url = `/threads/${threadId}/runs/${run.run_id}/report`;
    const v2 = { ...validRunReportV2, runId: run.run_id, threadId };
    await h.store.saveReport(run.run_id, v2);
    expect((await get(url)).json()).toEqual(v2);
    expect((await get(`${url}?version=2`)).json()).toEqual(v2);
    const v1 = (await get(`${url}?version=1`)).json();
    expect(v1).toEqual(project("run-report@2", v2, 1));
    expect(v1.version).toBe(1);
    expect(v1.modelRequests[1].messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant"]);

    const stored1 = { ...validRunReport, runId: run.run_id, threadId };
    await h.store.saveReport(run.run_id, stored1);
    expect((await get(url)).json()).toEqual(upgrade("run-report@1", stored1));
    expect((await get(`${url}?version=1`)).json()).toEqual(stored1);

    const bad = await get(`${url}?version=3`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe("KEEL_ERR_HTTP_INVALID_BODY");
    expect(bad.json().message).toContain('(one of "1", "2")');
  });

  it("nothing a client sends crashes the server", async () => {
    const threadId = await createThread(h.app);
    const payloads = [
      "[]",
      "null",
      "12",
      '"text"',
      '{"assistant_id":"lead","input":{"__proto__":{"polluted":true}}}',
      '{"assistant_id":"lead","constructor":{"prototype":{"polluted":true}}}',
      '{"assistant_id":"lead","config":{"configurable":{"thread_id":"someone-else","__pregel_x":1}},"metadata":{"receipts":[1]}}',
      '{"assistant_id":"lead","stream_mode":"values","input":' + "[".repeat(200) + "]".repeat(200) + "}",
    ];
    for (const payload of payloads) {
      const response = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: { ...ALICE, "content-type": "application/json" }, payload });
      expect(response.statusCode, payload.slice(0, 60)).toBeLessThan(500);
      expect(response.headers["content-type"]).toMatch(/json/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await get("/ok")).statusCode).toBe(200);
  });
});
