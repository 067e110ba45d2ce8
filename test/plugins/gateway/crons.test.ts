/**
 * The crons API driven through `@langchain/langgraph-sdk`'s `client.crons` against an
 * in-process gateway (docs/http.md, "Crons API"): one test per client method
 * and per parameter it sends, ownership (another user's cron is a 404), refused input (400
 * with a code and the pointer), and fires of the cron scheduler on an injected clock seen
 * through the SDK.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CronScheduler } from "../../../kernel/runs/cron-scheduler.js";
import { MemoryCronStore } from "../../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { ManualClock, START_MS } from "../../runs/run-manager-harness.js";
import { ScriptedExecutor, startHarness, until } from "./harness.js";

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The status and coded body of a refused SDK call. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: { error: string; message: string; pointer?: string } }> {
  try {
    await call;
  } catch (error) {
    const { status, message } = error as { status: number; message: string };
    return { status, body: JSON.parse(message.replace(/^HTTP \d+: /, "")) };
  }
  return { status: 200, body: { error: "", message: "the call was not refused" } };
}

describe("crons through @langchain/langgraph-sdk", () => {
  let app: GatewayApp;
  let runs: RunManager;
  let store: MemoryRunStore;
  let crons: MemoryCronStore;
  let scheduler: CronScheduler;
  let clock: ManualClock;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    clock = new ManualClock();
    store = new MemoryRunStore();
    crons = new MemoryCronStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), clock, log: () => undefined });
    scheduler = new CronScheduler({ crons, runs, store, clock, log: () => undefined });
    app = await createGateway({
      deps: { runs, store, bridge, crons },
      apiKeys: new ApiKeys([["key-alice", "alice"], ["key-bob", "bob"]]),
      stacks: ["lead", "subagent"],
      version: "9.9.9-test",
      now: () => iso(clock.now()),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address() as { port: number };
    const apiUrl = `http://127.0.0.1:${address.port}`;
    alice = new Client({ apiUrl, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    bob = new Client({ apiUrl, apiKey: "key-bob", callerOptions: { maxRetries: 0 } });
  });

  afterAll(async () => {
    await scheduler.settled();
    await runs.shutdown();
    await app.close();
  });

  /** Runs in flight must end before the clock moves (their leases live on it). */
  async function quiet(): Promise<void> {
    await until(async () => (await store.countRuns("running")) === 0 && (await store.countRuns("pending")) === 0, "no run in flight");
  }

  it("reports crons: true in /info (false, and no cron routes, without a cron store)", async () => {
    const info = (await app.inject({ method: "GET", url: "/info" })).json();
    expect(info.flags.crons).toBe(true);
    const plain = await startHarness();
    try {
      expect((await plain.app.inject({ method: "GET", url: "/info" })).json().flags.crons).toBe(false);
      const missing = await plain.app.inject({ method: "POST", url: "/runs/crons/search", headers: { "x-api-key": "key-alice" }, payload: {} });
      expect([missing.statusCode, missing.json().error]).toEqual([404, "KEEL_ERR_HTTP_NOT_FOUND"]);
    } finally {
      await plain.close();
    }
  });

  it("createForThread: a cron on the caller's thread, with LangGraph's Cron fields and the run payload", async () => {
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, "lead", {
      schedule: "*/5 * * * *",
      input: { messages: [{ role: "user", content: "status?" }] },
      metadata: { team: "ops" },
      config: { tags: ["nightly"] },
      context: { max_turns: 3 },
      multitaskStrategy: "interrupt",
      streamMode: ["values"],
    });
    expect(cron).toEqual({
      cron_id: expect.stringMatching(UUID),
      assistant_id: "lead",
      thread_id: thread.thread_id,
      on_run_completed: null,
      end_time: null,
      schedule: "*/5 * * * *",
      timezone: null,
      created_at: iso(clock.now()),
      updated_at: iso(clock.now()),
      payload: {
        assistant_id: "lead",
        input: { messages: [{ role: "user", content: "status?" }] },
        config: { tags: ["nightly"] },
        context: { max_turns: 3 },
        metadata: { team: "ops" },
        stream_mode: ["values"],
        multitask_strategy: "interrupt",
      },
      user_id: "alice",
      next_run_date: iso(clock.now() + 5 * MINUTE),
      metadata: { team: "ops" },
      enabled: true,
    });
    const stored = await crons.getCron(cron.cron_id);
    expect(stored).toMatchObject({ strategy: "interrupt", request: { assistantId: "lead", maxTurns: 3, context: { max_turns: 3 }, streamMode: ["values"] } });
  });

  it("create: a cron without a thread (on_run_completed delete by default, or keep), its timezone, end time and enabled flag", async () => {
    const plain = await alice.crons.create("subagent", { schedule: "0 9 * * *", input: "daily" });
    expect(plain).toMatchObject({ thread_id: null, assistant_id: "subagent", on_run_completed: "delete", enabled: true, next_run_date: "2026-01-01T09:00:00.000Z" });
    const zoned = await alice.crons.create("lead", { schedule: "0 9 * * *", timezone: "America/New_York", endTime: "2026-03-01T00:00:00Z", onRunCompleted: "keep", enabled: false });
    expect(zoned).toMatchObject({ timezone: "America/New_York", next_run_date: "2026-01-01T14:00:00.000Z", end_time: "2026-03-01T00:00:00.000Z", on_run_completed: "keep", enabled: false });
    const over = await alice.crons.create("lead", { schedule: "0 9 * * *", endTime: "2026-01-01T08:00:00Z" });
    expect(over.next_run_date).toBeNull();
    const nickname = await alice.crons.create("lead", { schedule: "@hourly" });
    expect(nickname.next_run_date).toBe(iso(START_MS + 60 * MINUTE));
  });

  it("search: the caller's crons, filtered by assistantId, threadId, enabled and metadata, sorted by sortBy/sortOrder, paged by limit/offset, narrowed by select", async () => {
    const thread = await bob.threads.create();
    clock.advance(1);
    const first = await bob.crons.createForThread(thread.thread_id, "lead", { schedule: "0 3 * * *", metadata: { kind: "a" } });
    clock.advance(1);
    const second = await bob.crons.create("subagent", { schedule: "0 1 * * *", metadata: { kind: "b" }, enabled: false });
    clock.advance(1);
    const third = await bob.crons.create("lead", { schedule: "0 2 * * *", metadata: { kind: "a", n: 2 } });
    const ids = (found: { cron_id?: string }[]) => found.map((c) => c.cron_id);

    expect(ids(await bob.crons.search())).toEqual([third.cron_id, second.cron_id, first.cron_id]);
    expect(ids(await bob.crons.search({ assistantId: "lead" }))).toEqual([third.cron_id, first.cron_id]);
    expect(ids(await bob.crons.search({ threadId: thread.thread_id }))).toEqual([first.cron_id]);
    expect(ids(await bob.crons.search({ enabled: false }))).toEqual([second.cron_id]);
    expect(ids(await bob.crons.search({ enabled: true }))).toEqual([third.cron_id, first.cron_id]);
    expect(ids(await bob.crons.search({ metadata: { kind: "a" } }))).toEqual([third.cron_id, first.cron_id]);
    expect(ids(await bob.crons.search({ metadata: { kind: "a", n: 2 } }))).toEqual([third.cron_id]);
    expect(ids(await bob.crons.search({ sortBy: "next_run_date", sortOrder: "asc" }))).toEqual([second.cron_id, third.cron_id, first.cron_id]);
    expect(ids(await bob.crons.search({ sortBy: "created_at", sortOrder: "asc" }))).toEqual([first.cron_id, second.cron_id, third.cron_id]);
    expect(ids(await bob.crons.search({ limit: 1 }))).toEqual([third.cron_id]);
    expect(ids(await bob.crons.search({ limit: 1, offset: 2 }))).toEqual([first.cron_id]);
    const selected = await bob.crons.search({ select: ["cron_id", "schedule", "now"], limit: 1 });
    expect(selected).toEqual([{ cron_id: third.cron_id, schedule: "0 2 * * *", now: iso(clock.now()) }]);
    // Alice sees none of Bob's.
    expect(ids(await alice.crons.search({ threadId: thread.thread_id }))).toEqual([]);
  });

  it("count: the caller's crons, by assistantId, threadId and metadata", async () => {
    const before = await bob.crons.count();
    const thread = await bob.threads.create();
    await bob.crons.createForThread(thread.thread_id, "subagent", { schedule: "0 4 * * *", metadata: { counted: "yes" } });
    await bob.crons.create("subagent", { schedule: "0 4 * * *", metadata: { counted: "yes" } });
    expect(await bob.crons.count()).toBe(before + 2);
    expect(await bob.crons.count({ threadId: thread.thread_id })).toBe(1);
    expect(await bob.crons.count({ metadata: { counted: "yes" } })).toBe(2);
    expect(await bob.crons.count({ assistantId: "subagent", metadata: { counted: "yes" } })).toBe(2);
    expect(await bob.crons.count({ assistantId: "lead", metadata: { counted: "yes" } })).toBe(0);
    expect(await alice.crons.count({ metadata: { counted: "yes" } })).toBe(0);
  });

  it("update: schedule and timezone move the next run, endTime null clears, metadata merges, input and enabled replace", async () => {
    const cron = await alice.crons.create("lead", { schedule: "0 9 * * *", input: "old", metadata: { a: 1, b: 1 }, endTime: "2026-06-01T00:00:00Z" });
    clock.advance(1);
    const updated = await alice.crons.update(cron.cron_id, { schedule: "30 10 * * *", timezone: "Europe/Paris", endTime: null, metadata: { b: 2, c: 3 }, input: "new", enabled: false, onRunCompleted: "keep" });
    expect(updated).toMatchObject({
      cron_id: cron.cron_id,
      schedule: "30 10 * * *",
      timezone: "Europe/Paris",
      next_run_date: "2026-01-01T09:30:00.000Z",
      end_time: null,
      metadata: { a: 1, b: 2, c: 3 },
      payload: { assistant_id: "lead", input: "new", metadata: { a: 1, b: 2, c: 3 } },
      enabled: false,
      on_run_completed: "keep",
      created_at: cron.created_at,
      updated_at: iso(clock.now()),
    });
    expect((await crons.getCron(cron.cron_id))?.request).toMatchObject({ input: "new", metadata: { a: 1, b: 2, c: 3 } });
    // Only metadata: the next run stays where it was.
    const again = await alice.crons.update(cron.cron_id, { metadata: { d: 4 } });
    expect(again.next_run_date).toBe("2026-01-01T09:30:00.000Z");
    expect(again.metadata).toEqual({ a: 1, b: 2, c: 3, d: 4 });
    expect(again.enabled).toBe(false);
  });

  it("delete: 204, then the cron is gone (a second delete is a 404)", async () => {
    const cron = await alice.crons.create("lead", { schedule: "0 9 * * *", metadata: { doomed: true } });
    const answer = await app.inject({ method: "DELETE", url: `/runs/crons/${cron.cron_id}`, headers: { "x-api-key": "key-alice" } });
    expect(answer.statusCode).toBe(204);
    expect(await alice.crons.count({ metadata: { doomed: true } })).toBe(0);
    const other = await alice.crons.create("lead", { schedule: "0 9 * * *", metadata: { doomed: true } });
    await alice.crons.delete(other.cron_id);
    expect(await alice.crons.search({ metadata: { doomed: true } })).toEqual([]);
    expect((await refusal(alice.crons.delete(other.cron_id))).status).toBe(404);
  });

  it("deleting a thread deletes its crons", async () => {
    const thread = await alice.threads.create();
    const kept = await alice.threads.create();
    await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "0 9 * * *" });
    await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "0 10 * * *" });
    await alice.crons.createForThread(kept.thread_id, "lead", { schedule: "0 9 * * *" });
    expect(await alice.crons.count({ threadId: thread.thread_id })).toBe(2);
    await alice.threads.delete(thread.thread_id);
    await until(async () => (await alice.crons.count({ threadId: thread.thread_id })) === 0, "the thread's crons deleted");
    expect(await alice.crons.count({ threadId: kept.thread_id })).toBe(1);
  });

  it("another user's cron or thread is a 404, never a 403", async () => {
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "0 9 * * *" });
    for (const call of [bob.crons.update(cron.cron_id, { enabled: false }), bob.crons.delete(cron.cron_id), bob.crons.createForThread(thread.thread_id, "lead", { schedule: "0 9 * * *" })]) {
      const refused = await refusal(call);
      expect([refused.status, refused.body.error]).toEqual([404, "KEEL_ERR_HTTP_NOT_FOUND"]);
    }
    expect((await crons.getCron(cron.cron_id))?.enabled).toBe(true);
    expect((await refusal(alice.crons.create("nope", { schedule: "0 9 * * *" }))).status).toBe(404);
  });

  it("refuses bad input with 400, a stable code and the pointer", async () => {
    const thread = await alice.threads.create();
    const cases: Array<[() => Promise<unknown>, string, string]> = [
      [() => alice.crons.create("lead", { schedule: "every day" }), "KEEL_ERR_CRON_SCHEDULE_INVALID", "/schedule"],
      [() => alice.crons.create("lead", { schedule: "0 0 9 * * *" }), "KEEL_ERR_CRON_SCHEDULE_INVALID", "/schedule"],
      [() => alice.crons.create("lead", { schedule: "61 * * * *" }), "KEEL_ERR_CRON_SCHEDULE_INVALID", "/schedule"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", timezone: "Mars/Olympus" }), "KEEL_ERR_CRON_SCHEDULE_INVALID", "/timezone"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", endTime: "tomorrow" }), "KEEL_ERR_HTTP_INVALID_BODY", "/end_time"],
      // Webhooks are off on this server (no allowed host): crons-webhook.test.ts has them on.
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", webhook: "https://example.com/hook" }), "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", "/webhook"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", interruptBefore: ["tools", "planner"] }), "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", "/interrupt_before/1"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", durability: "exit" }), "KEEL_ERR_HTTP_INVALID_BODY", "/durability"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", config: { configurable: { max_turns: 0 } } }), "KEEL_ERR_HTTP_INVALID_BODY", "/config/configurable/max_turns"],
      [() => alice.crons.create("lead", { schedule: "0 9 * * *", multitaskStrategy: "later" as never }), "KEEL_ERR_HTTP_INVALID_BODY", "/multitask_strategy"],
      [() => alice.crons.createForThread(thread.thread_id, "lead", { schedule: "0 9 * * *", onRunCompleted: "keep" }), "KEEL_ERR_HTTP_INVALID_BODY", "/on_run_completed"],
      [() => alice.crons.search({ limit: 1001 }), "KEEL_ERR_HTTP_INVALID_BODY", "/limit"],
      [() => alice.crons.search({ offset: -1 }), "KEEL_ERR_HTTP_INVALID_BODY", "/offset"],
      [() => alice.crons.search({ sortBy: "name" as never }), "KEEL_ERR_HTTP_INVALID_BODY", "/sort_by"],
      [() => alice.crons.search({ select: ["secret" as never] }), "KEEL_ERR_HTTP_INVALID_BODY", "/select/0"],
    ];
    for (const [call, code, pointer] of cases) {
      const refused = await refusal(call());
      expect([pointer, refused.status, refused.body.error, refused.body.pointer]).toEqual([pointer, 400, code, pointer]);
    }
    const noSchedule = await app.inject({ method: "POST", url: "/runs/crons", headers: { "x-api-key": "key-alice" }, payload: { assistant_id: "lead" } });
    expect([noSchedule.statusCode, noSchedule.json().pointer]).toEqual([400, "/schedule"]);
    const cron = await alice.crons.create("lead", { schedule: "0 9 * * *" });
    const badUpdate = await refusal(alice.crons.update(cron.cron_id, { schedule: "* *" }));
    expect([badUpdate.status, badUpdate.body.error, badUpdate.body.pointer]).toEqual([400, "KEEL_ERR_CRON_SCHEDULE_INVALID", "/schedule"]);
    expect((await crons.getCron(cron.cron_id))?.schedule).toBe("0 9 * * *");
  });

  it("fires: a thread cron's tick is an ordinary run on its thread, seen by runs.list; a stateless cron's on a new thread", async () => {
    await quiet();
    const user = new Client({ apiUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
    // Only this test's crons may fire: disable every cron made so far.
    for (const cron of [...(await user.crons.search({ limit: 1000 })), ...(await bob.crons.search({ limit: 1000 }))]) await crons.updateCron(cron.cron_id, { enabled: false }, iso(clock.now()));
    const thread = await user.threads.create();
    const onThread = await user.crons.createForThread(thread.thread_id, "lead", { schedule: "* * * * *", input: { events: 1 }, metadata: { fired: "thread" } });
    const stateless = await user.crons.create("lead", { schedule: "* * * * *", input: { events: 1 }, onRunCompleted: "keep", metadata: { fired: "stateless" } });
    expect(await user.runs.list(thread.thread_id)).toEqual([]);

    clock.advance(MINUTE);
    const fires = await scheduler.tick();
    expect(fires.map((f) => f.cronId).sort()).toEqual([onThread.cron_id, stateless.cron_id].sort());
    await quiet();
    const [run] = await user.runs.list(thread.thread_id);
    expect(run).toMatchObject({ thread_id: thread.thread_id, assistant_id: "lead", status: "success", metadata: { fired: "thread", cron_id: onThread.cron_id } });
    expect((await user.crons.search({ threadId: thread.thread_id }))[0]?.next_run_date).toBe(iso(START_MS + Math.ceil((clock.now() - START_MS + 1) / MINUTE) * MINUTE));

    const [made] = await user.threads.search({ metadata: { cron_id: stateless.cron_id } });
    expect(made).toBeDefined();
    expect(made!.thread_id).not.toBe(thread.thread_id);
    const [statelessRun] = await user.runs.list(made!.thread_id);
    expect(statelessRun).toMatchObject({ status: "success", metadata: { fired: "stateless", cron_id: stateless.cron_id } });

    // Deleting the cron stops it.
    await user.crons.delete(onThread.cron_id);
    await user.crons.delete(stateless.cron_id);
    clock.advance(MINUTE);
    expect(await scheduler.tick()).toEqual([]);
    expect(await user.runs.list(thread.thread_id)).toHaveLength(1);
  });
});
