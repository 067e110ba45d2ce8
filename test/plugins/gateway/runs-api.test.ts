/**
 * The Runs API (docs/http.md, "Runs API") driven through
 * `@langchain/langgraph-sdk`'s Client against a listening gateway on the scripted executor
 * (harness.ts) and a manual clock: one test per SDK method and per documented parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, until } from "./harness.js";
import { sdkError, startRunsApi, type RunsApiHarness } from "./runs-api-harness.js";

describe("Runs API through the SDK", () => {
  let h: RunsApiHarness;
  beforeAll(async () => {
    h = await startRunsApi({ maxTurns: 50 });
  });
  afterAll(async () => h.close());

  const runOf = async (runId: string) => (await h.store.getRun(runId))!;

  it("runs.create(null, …): a background run on a new thread of the caller's, deleted once the run ended (on_completion `delete`, the default)", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const run = await h.alice.runs.create(null, "lead", { input: "gate", metadata: { case: "threadless" }, onRunCreated: (meta) => (created = meta) });
    expect(run.thread_id).toBeTruthy();
    expect(created).toEqual({ run_id: run.run_id, thread_id: run.thread_id });
    const thread = await h.store.getThread(run.thread_id);
    expect(thread).toMatchObject({ owner: "alice", metadata: { graph_id: "lead", assistant_id: "lead", case: "threadless" } });
    // While it runs the thread is the caller's, and nobody else's.
    expect((await h.alice.runs.get(run.thread_id, run.run_id)).run_id).toBe(run.run_id);
    expect((await sdkError(h.bob.runs.get(run.thread_id, run.run_id))).status).toBe(404);
    await until(() => h.executor.isWaiting(run.run_id), "the run to start");
    h.executor.release(run.run_id);
    await until(async () => (await h.store.getThread(run.thread_id)) === null, "the temporary thread to be deleted");
    expect(await h.store.getRun(run.run_id)).toBeNull();
    expect((await sdkError(h.alice.threads.get(run.thread_id))).status).toBe(404);
  });

  it("onCompletion `keep`: the thread stays with its run; runs.joinStream(null, runId) streams the run by its id alone", async () => {
    const run = await h.alice.runs.create(null, "lead", { input: "gate", onCompletion: "keep" });
    const events: string[] = [];
    const joined = (async () => {
      for await (const part of h.alice.runs.joinStream(null, run.run_id)) events.push(part.event);
    })();
    await until(() => h.executor.isWaiting(run.run_id), "the run to start");
    h.executor.release(run.run_id);
    await joined;
    expect(events[0]).toBe("metadata");
    expect(events).toContain("values");
    expect(events.at(-1)).toBe("end");
    expect((await h.alice.runs.get(run.thread_id, run.run_id)).status).toBe("success");
    expect((await h.alice.threads.get(run.thread_id)).thread_id).toBe(run.thread_id);
    // Another user's run id reads as missing there too.
    await expect(
      (async () => {
        for await (const _ of h.bob.runs.joinStream(null, run.run_id)) void _;
      })(),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("runs.joinStream(null, runId) streams in the run's own stream modes, or those it asks for", async () => {
    const run = await h.alice.runs.create(null, "lead", { input: "gate", onCompletion: "keep", streamMode: ["custom"] });
    const join = async (streamMode?: "values" | "custom") => {
      const events: string[] = [];
      for await (const part of h.alice.runs.joinStream(null, run.run_id, streamMode ? { streamMode } : {})) events.push(part.event);
      return events;
    };
    const own = join();
    const asked = join("values");
    await until(() => h.executor.isWaiting(run.run_id), "the run to start");
    h.executor.release(run.run_id);
    expect(await own).toEqual(["metadata", "custom", "custom", "end"]);
    expect(await asked).toEqual(["metadata", "values", "end"]);
  });

  it("runs.wait(null, …): the run's final values, then its temporary thread is deleted", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const values = (await h.alice.runs.wait(null, "lead", { input: { events: 4 }, onRunCreated: (meta) => (created = meta) })) as { turns: number; messages: { content: string }[] };
    expect(values.turns).toBe(4);
    expect(values.messages[0]!.content).toBe(`done ${created!.run_id}`);
    await until(async () => (await h.store.getThread(created!.thread_id!)) === null, "the temporary thread to be deleted");
  });

  it("runs.stream(null, …): metadata first, end last; the thread is deleted afterwards", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts: Array<{ event: string; data: unknown }> = [];
    for await (const part of h.alice.runs.stream(null, "lead", { input: { events: 2 }, streamMode: ["custom", "values"], onRunCreated: (meta) => (created = meta) })) parts.push(part as { event: string; data: unknown });
    expect(parts[0]).toMatchObject({ event: "metadata", data: { run_id: created!.run_id, thread_id: created!.thread_id } });
    expect(parts.filter((p) => p.event === "custom").map((p) => p.data)).toEqual([{ step: 1 }, { step: 2 }]);
    expect(parts.at(-1)!.event).toBe("end");
    await until(async () => (await h.store.getThread(created!.thread_id!)) === null, "the temporary thread to be deleted");
  });

  it("runs.createBatch: one run per payload, each on a new thread; a bad payload refuses the whole batch, its index in the pointer", async () => {
    const runs = await h.alice.runs.createBatch([
      // The SDK sends each payload's keys as given: LangGraph's snake_case names.
      { assistantId: "lead", input: { events: 1 }, on_completion: "keep" } as never,
      { assistantId: "subagent", input: { events: 2 }, on_completion: "keep" } as never,
    ]);
    expect(runs.map((r) => r.assistant_id)).toEqual(["lead", "subagent"]);
    expect(new Set(runs.map((r) => r.thread_id)).size).toBe(2);
    for (const run of runs) expect((await h.alice.runs.join(run.thread_id, run.run_id)) as { turns: number }).toMatchObject({ turns: run.assistant_id === "lead" ? 1 : 2 });

    const before = (await h.store.searchThreads({ owner: "alice", limit: 1000, offset: 0 })).length;
    const refused = await sdkError(h.alice.runs.createBatch([{ assistantId: "lead", input: "gate" }, { assistantId: "lead", input: "x", interrupt_before: ["agent", "planner"] } as never]));
    expect(refused).toMatchObject({ status: 400, body: { error: "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", pointer: "/1/interrupt_before/1" } });
    expect((await h.store.searchThreads({ owner: "alice", limit: 1000, offset: 0 })).length).toBe(before);
    expect((await sdkError(h.alice.runs.createBatch([{ assistantId: "nope" }]))).status).toBe(404);
  });

  it("runs.cancelMany({ threadId, runIds }) interrupts those runs; an unknown or foreign id is a 404 before anything is cancelled", async () => {
    const thread = await h.alice.threads.create();
    const first = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    const second = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate", multitaskStrategy: "enqueue" });
    const missing = await sdkError(h.alice.runs.cancelMany({ threadId: thread.thread_id, runIds: [first.run_id, "no-such-run"] }));
    expect(missing.status).toBe(404);
    expect((await runOf(first.run_id)).status).toBe("running");
    expect((await sdkError(h.bob.runs.cancelMany({ threadId: thread.thread_id, runIds: [first.run_id] }))).status).toBe(404);

    await h.alice.runs.cancelMany({ threadId: thread.thread_id, runIds: [first.run_id, second.run_id] });
    await until(async () => (await runOf(first.run_id)).status === "interrupted", "the first run to be interrupted");
    expect((await runOf(second.run_id)).status).toBe("interrupted");
  });

  it("runs.cancelMany({ status }) cancels the caller's runs in that state, on all their threads, and never another user's", async () => {
    const a = await h.alice.threads.create();
    const b = await h.alice.threads.create();
    const running = await h.alice.runs.create(a.thread_id, "lead", { input: "gate" });
    await until(() => h.executor.isWaiting(running.run_id), "the run to start");
    const pending = await h.alice.runs.create(a.thread_id, "lead", { input: "gate", multitaskStrategy: "enqueue" });
    const later = await h.alice.runs.create(b.thread_id, "lead", { input: "gate", afterSeconds: 3600 });
    const bobs = await h.bob.threads.create();
    const bobRun = await h.bob.runs.create(bobs.thread_id, "lead", { input: "gate", afterSeconds: 3600 });

    await h.alice.runs.cancelMany({ status: "pending" });
    await until(async () => (await runOf(pending.run_id)).status === "interrupted", "the pending run to be cancelled");
    expect((await runOf(later.run_id)).status).toBe("interrupted");
    expect((await runOf(running.run_id)).status).toBe("running");
    expect((await runOf(bobRun.run_id)).status).toBe("pending");

    await h.alice.runs.cancelMany({ status: "running", threadId: a.thread_id });
    await until(async () => (await runOf(running.run_id)).status === "interrupted", "the running run to be cancelled");
    await h.bob.runs.cancelMany({ status: "all" });
    await until(async () => (await runOf(bobRun.run_id)).status === "interrupted", "bob's run to be cancelled");
  });

  it("runs.cancelMany needs `run_ids` with their `thread_id`, or a `status` (400 naming the field)", async () => {
    expect(await sdkError(h.alice.runs.cancelMany({}))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/run_ids" } });
    expect(await sdkError(h.alice.runs.cancelMany({ runIds: ["r1"] }))).toMatchObject({ status: 400, body: { pointer: "/thread_id" } });
    expect(await sdkError(h.alice.runs.cancelMany({ status: "done" as never }))).toMatchObject({ status: 400, body: { pointer: "/status" } });
    expect(await sdkError(h.alice.runs.cancelMany({ status: "all", action: "undo" as never }))).toMatchObject({ status: 400, body: { pointer: "/action" } });
  });

  it("runs.delete removes a finished run with its journal and report; an active run is a 409, another user's a 404", async () => {
    const thread = await h.alice.threads.create();
    const done = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 } });
    await h.alice.runs.join(thread.thread_id, done.run_id);
    const active = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    expect(await sdkError(h.alice.runs.delete(thread.thread_id, active.run_id))).toMatchObject({ status: 409, body: { error: "KEEL_ERR_HTTP_RUN_ACTIVE" } });
    expect((await sdkError(h.bob.runs.delete(thread.thread_id, done.run_id))).status).toBe(404);
    expect((await h.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${done.run_id}/journal`, headers: ALICE })).statusCode).toBe(200);

    await h.alice.runs.delete(thread.thread_id, done.run_id);
    expect((await sdkError(h.alice.runs.get(thread.thread_id, done.run_id))).status).toBe(404);
    expect((await h.alice.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([active.run_id]);
    expect((await h.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${done.run_id}/journal`, headers: ALICE })).statusCode).toBe(404);
    expect(await h.store.getReport(done.run_id)).toBeNull();
    expect((await sdkError(h.alice.runs.delete(thread.thread_id, done.run_id))).status).toBe(404);
    h.executor.release(active.run_id);
    await h.alice.runs.join(thread.thread_id, active.run_id);
  });

  it("runs.list filters by status, newest first, with limit and offset", async () => {
    const thread = await h.alice.threads.create();
    const ok = await h.alice.runs.wait(thread.thread_id, "lead", { input: { events: 1 } });
    expect(ok).toBeTruthy();
    await h.alice.runs.wait(thread.thread_id, "lead", { input: "fail" }, ).catch(() => undefined);
    const third = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 } });
    await h.alice.runs.join(thread.thread_id, third.run_id);
    const all = await h.alice.runs.list(thread.thread_id);
    expect(all.map((r) => r.status)).toEqual(["success", "error", "success"]);
    expect((await h.alice.runs.list(thread.thread_id, { status: "error" })).map((r) => r.run_id)).toEqual([all[1]!.run_id]);
    expect((await h.alice.runs.list(thread.thread_id, { status: "success", limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([all[2]!.run_id]);
    expect(await h.alice.runs.list(thread.thread_id, { status: "pending" })).toEqual([]);
    expect((await sdkError(h.alice.runs.list(thread.thread_id, { status: "done" as never }))).body.pointer).toBe("/status");
  });

  it("afterSeconds: the run stays pending until it is due (the server's clock), then it runs", async () => {
    const thread = await h.alice.threads.create();
    const run = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 }, afterSeconds: 90 });
    expect(run.status).toBe("pending");
    const record = await runOf(run.run_id);
    expect(Date.parse(record.dueAt!) - Date.parse(record.createdAt)).toBe(90_000);
    await h.runs.claimPending();
    expect((await runOf(run.run_id)).status).toBe("pending");
    expect(h.executor.started).not.toContain(run.run_id);
    h.clock.advance(90_000);
    await h.runs.claimPending();
    expect((await h.alice.runs.join(thread.thread_id, run.run_id)) as { turns: number }).toMatchObject({ turns: 1 });
    expect((await h.alice.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { afterSeconds: -1 }))).toMatchObject({ status: 400, body: { pointer: "/after_seconds" } });
  });

  it("config.recursion_limit becomes the turn limit max(1, ⌊(limit − 10) / 2⌋), clamped to the server's; an explicit max_turns wins; a bad one is a 400", async () => {
    const thread = await h.alice.threads.create();
    const turns = async (config: Record<string, unknown>, context?: Record<string, unknown>) => {
      const run = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 }, config, ...(context ? { context } : {}), multitaskStrategy: "enqueue" });
      await h.alice.runs.join(thread.thread_id, run.run_id);
      return { wire: (run.kwargs as { max_turns?: number }).max_turns, stored: (await runOf(run.run_id)).request.maxTurns };
    };
    expect(await turns({ recursion_limit: 25 })).toEqual({ wire: 7, stored: 7 });
    expect(await turns({ recursion_limit: 12 })).toEqual({ wire: 1, stored: 1 });
    expect(await turns({ recursion_limit: 1 })).toEqual({ wire: 1, stored: 1 });
    // The server's maxTurns (50 here) clamps it.
    expect(await turns({ recursion_limit: 10_000 })).toEqual({ wire: 50, stored: 50 });
    expect(await turns({ recursion_limit: 25 }, { max_turns: 3 })).toEqual({ wire: 3, stored: 3 });
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { config: { recursion_limit: 0 } }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/config/recursion_limit" } });
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { config: { recursion_limit: "lots" as never } }))).toMatchObject({ status: 400, body: { pointer: "/config/recursion_limit" } });
  });

  it("ifNotExists `create` makes the missing thread for the caller; the default (`reject`) is a 404, another user's thread a 404", async () => {
    const threadId = `made-by-run-${Date.now()}`;
    expect((await sdkError(h.alice.runs.create(threadId, "lead", { input: { events: 1 } }))).status).toBe(404);
    expect(await h.store.getThread(threadId)).toBeNull();
    const run = await h.alice.runs.create(threadId, "lead", { input: { events: 1 }, ifNotExists: "create", metadata: { origin: "run" } });
    expect(run.thread_id).toBe(threadId);
    expect(await h.store.getThread(threadId)).toMatchObject({ owner: "alice", metadata: { graph_id: "lead", origin: "run" } });
    await h.alice.runs.join(threadId, run.run_id);
    // It is an ordinary thread: it stays.
    expect((await h.alice.threads.get(threadId)).thread_id).toBe(threadId);
    expect((await sdkError(h.bob.runs.create(threadId, "lead", { input: "x", ifNotExists: "create" }))).status).toBe(404);
    expect((await sdkError(h.alice.runs.create(threadId, "lead", { ifNotExists: "maybe" as never }))).body.pointer).toBe("/if_not_exists");
  });

  it("multitaskStrategy `rollback`: the rolled-back run is gone from runs.get and runs.list; its report and journal stay readable by id", async () => {
    const thread = await h.alice.threads.create();
    const first = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    await until(() => h.executor.isWaiting(first.run_id), "the first run to start");
    const second = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 }, multitaskStrategy: "rollback" });
    await h.alice.runs.join(thread.thread_id, second.run_id);
    await until(async () => (await runOf(first.run_id)).status === "interrupted", "the first run to end");
    expect((await sdkError(h.alice.runs.get(thread.thread_id, first.run_id))).status).toBe(404);
    expect((await h.alice.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([second.run_id]);
    expect(await h.alice.runs.list(thread.thread_id, { status: "interrupted" })).toEqual([]);
    const report = await h.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${first.run_id}/report?version=1`, headers: ALICE });
    expect(report.statusCode).toBe(200);
    expect(report.json()).toMatchObject({ runId: first.run_id, outcome: { status: "cancelled" } });
    expect((await h.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${first.run_id}/journal`, headers: ALICE })).statusCode).toBe(200);

    // runs.cancel with action rollback: gone too; an interrupted run stays visible.
    const third = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    await until(() => h.executor.isWaiting(third.run_id), "the third run to start");
    await h.alice.runs.cancel(thread.thread_id, third.run_id, true, "rollback");
    expect((await sdkError(h.alice.runs.get(thread.thread_id, third.run_id))).status).toBe(404);
    const fourth = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    await until(() => h.executor.isWaiting(fourth.run_id), "the fourth run to start");
    await h.alice.runs.cancel(thread.thread_id, fourth.run_id, true, "interrupt");
    expect((await h.alice.runs.get(thread.thread_id, fourth.run_id)).status).toBe("interrupted");
    expect((await h.alice.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([fourth.run_id, second.run_id]);
  });

  it("multitaskStrategy `reject` (default) is a 409 while a run is active; `interrupt` keeps the old run visible as interrupted; `enqueue` runs after it", async () => {
    const thread = await h.alice.threads.create();
    const first = await h.alice.runs.create(thread.thread_id, "lead", { input: "gate" });
    await until(() => h.executor.isWaiting(first.run_id), "the first run to start");
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { input: "x" }))).toMatchObject({ status: 409, body: { error: "KEEL_ERR_HTTP_RUN_ACTIVE" } });
    const queued = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 }, multitaskStrategy: "enqueue" });
    expect(queued.status).toBe("pending");
    const replacing = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 1 }, multitaskStrategy: "interrupt" });
    await h.alice.runs.join(thread.thread_id, replacing.run_id);
    expect((await h.alice.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    expect((await h.alice.runs.get(thread.thread_id, queued.run_id)).status).toBe("interrupted");
    expect((await h.alice.runs.get(thread.thread_id, replacing.run_id)).multitask_strategy).toBe("interrupt");
  });

  it("a LangGraph field with a value Keel does not support is a 400 KEEL_ERR_HTTP_UNSUPPORTED_FIELD naming it; LangGraph's no-op values are accepted", async () => {
    const thread = await h.alice.threads.create();
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ feedback_keys: ["score"] }, "/feedback_keys"],
      [{ langsmith_tracer: { project_name: "p" } }, "/langsmith_tracer"],
      [{ strict_resume: true }, "/strict_resume"],
      [{ checkpoint_during: false }, "/checkpoint_during"],
      [{ durability: "exit" }, "/durability"],
      [{ checkpoint_id: "1ef-abc" }, "/checkpoint_id"],
      [{ checkpoint: { checkpoint_id: "1ef-abc" } }, "/checkpoint/checkpoint_id"],
      [{ checkpoint: { checkpoint_ns: "child" } }, "/checkpoint/checkpoint_ns"],
    ];
    for (const [fields, pointer] of refused) {
      const response = await h.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, headers: ALICE, payload: { assistant_id: "lead", input: "x", ...fields } });
      expect({ fields, status: response.statusCode, body: response.json() }).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_UNSUPPORTED_FIELD", pointer } });
    }
    expect(await h.store.listRuns(thread.thread_id, { limit: 10, offset: 0 })).toEqual([]);
    const badType = await h.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, headers: ALICE, payload: { assistant_id: "lead", interrupt_before: 5 } });
    expect(badType.json()).toMatchObject({ error: "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", pointer: "/interrupt_before" });
    // `null` is "not set" everywhere (a `null` boolean is not coerced to `false`).
    const accepted = { interrupt_before: [], interrupt_after: null, stream_subgraphs: false, feedback_keys: null, strict_resume: null, checkpoint_during: null, durability: "sync", on_completion: "keep", checkpoint: { checkpoint_ns: "" }, a_future_field: 1 };
    const response = await h.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs/wait`, headers: ALICE, payload: { assistant_id: "lead", input: { events: 1 }, ...accepted } });
    expect({ status: response.statusCode, body: response.json() }).toMatchObject({ status: 200, body: { turns: 1 } });
    // A wrong type of a known field is an ordinary schema error.
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { onCompletion: "later" as never }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/on_completion" } });
    expect(await sdkError(h.alice.runs.create(thread.thread_id, "lead", { durability: "never" as never }))).toMatchObject({ status: 400, body: { pointer: "/durability" } });
  });

  it("a webhook on a server that names no webhook host is a 400 KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED (`/webhook`), and nothing is admitted", async () => {
    const thread = await h.alice.threads.create();
    const refused = await sdkError(h.alice.runs.create(thread.thread_id, "lead", { input: "x", webhook: "https://hooks.example.com/done" }));
    expect(refused).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", pointer: "/webhook" } });
    expect(refused.body.message).toContain("webhooks are off");
    expect(await h.store.listRuns(thread.thread_id, { limit: 10, offset: 0 })).toEqual([]);
  });
});
