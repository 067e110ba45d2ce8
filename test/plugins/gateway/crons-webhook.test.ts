/**
 * Crons' `webhook` (docs/http.md, "Crons API"): each fire's run is POSTed to a
 * real local HTTP server once it ended, as a run's webhook (same allowlist, retries and
 * payload); the URL is checked at create and update; a stateless fire's thread is deleted
 * only after its values were read for the webhook.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CronScheduler } from "../../../kernel/runs/cron-scheduler.js";
import { MemoryCronStore } from "../../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { ManualClock } from "../../runs/run-manager-harness.js";
import { ScriptedExecutor, until } from "./harness.js";
import { sdkError, startWebhookReceiver } from "./runs-api-harness.js";

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("cron webhooks through the SDK", () => {
  let app: GatewayApp;
  let runs: RunManager;
  let store: MemoryRunStore;
  let crons: MemoryCronStore;
  let scheduler: CronScheduler;
  let clock: ManualClock;
  let alice: Client;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    // The first delivery answers 503 (retried), then 200.
    receiver = await startWebhookReceiver([503]);
    clock = new ManualClock();
    store = new MemoryRunStore();
    crons = new MemoryCronStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), clock, log: () => undefined });
    scheduler = new CronScheduler({ crons, runs, store, clock, log: () => undefined });
    app = await createGateway({
      deps: { runs, store, bridge, crons, cronFires: scheduler },
      apiKeys: new ApiKeys([["key-alice", "alice"]]),
      stacks: ["lead"],
      version: "9.9.9-test",
      now: () => iso(clock.now()),
      webhooks: { allowHosts: ["127.0.0.1"], backoffMs: 1, timeoutMs: 2_000 },
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    alice = new Client({ apiUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
  });

  afterAll(async () => {
    await scheduler.settled();
    await runs.shutdown();
    await app.close();
    await receiver.close();
  });

  it("POSTs each fire's finished run (thread cron and stateless cron) with its values, retrying a 503", async () => {
    const thread = await alice.threads.create();
    const onThread = await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "* * * * *", input: { events: 1 }, webhook: receiver.url, metadata: { hook: "thread" } });
    expect(onThread.payload).toMatchObject({ webhook: receiver.url });
    const stateless = await alice.crons.create("lead", { schedule: "* * * * *", input: { events: 2 }, webhook: receiver.url, metadata: { hook: "stateless" } });

    clock.advance(MINUTE);
    const fires = await scheduler.tick();
    expect(fires).toHaveLength(2);
    // One of the two deliveries met the 503 and was retried: three requests in all.
    await until(() => receiver.received.length >= 3, "the cron runs' webhooks");
    await scheduler.settled();
    const byCron = (cronId: string) => receiver.received.map((r) => r.body).filter((b) => (b.metadata as Record<string, unknown>).cron_id === cronId);
    const threadHooks = byCron(onThread.cron_id);
    expect(threadHooks.length + byCron(stateless.cron_id).length).toBe(3);
    expect(threadHooks.at(-1)).toMatchObject({ thread_id: thread.thread_id, assistant_id: "lead", status: "success", metadata: { hook: "thread", cron_id: onThread.cron_id }, values: { turns: 1 } });
    const statelessHook = byCron(stateless.cron_id).at(-1);
    const statelessRun = fires.find((f) => f.cronId === stateless.cron_id) as { run: { runId: string; threadId: string } };
    // Its values were read before the scheduler deleted its thread.
    expect(statelessHook).toMatchObject({ run_id: statelessRun.run.runId, status: "success", values: { turns: 2 } });
    expect(await store.getThread(statelessRun.run.threadId)).toBeNull();
  });

  it("update: a new webhook is used by the next fire; `webhook: null` stops it", async () => {
    for (const cron of await alice.crons.search({ limit: 100 })) await alice.crons.delete(cron.cron_id);
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, "lead", { schedule: "* * * * *", input: { events: 1 } });
    expect(cron.payload).not.toHaveProperty("webhook");
    const updated = await alice.crons.update(cron.cron_id, { webhook: `${receiver.url}?v=2` } as never);
    expect(updated.payload).toMatchObject({ webhook: `${receiver.url}?v=2` });
    const before = receiver.received.length;
    clock.advance(MINUTE);
    const [fire] = await scheduler.tick();
    const runId = (fire as { run: { runId: string } }).run.runId;
    await until(() => receiver.received.some((r) => r.body.run_id === runId), "the updated webhook");
    expect(receiver.received.length).toBe(before + 1);

    const cleared = await alice.crons.update(cron.cron_id, { webhook: null } as never);
    expect(cleared.payload).not.toHaveProperty("webhook");
    clock.advance(MINUTE);
    const [second] = await scheduler.tick();
    const secondId = (second as { run: { runId: string } }).run.runId;
    await runs.join(secondId);
    await alice.runs.join(thread.thread_id, secondId);
    expect(receiver.received.some((r) => r.body.run_id === secondId)).toBe(false);
  });

  it("refuses at create and update (400 KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED, `/webhook`) a host not on the list or a relative URL", async () => {
    for (const webhook of ["https://hooks.example.com/x", "http://localhost:9/x", "/hook"]) {
      const refused = await sdkError(alice.crons.create("lead", { schedule: "0 9 * * *", webhook }));
      expect({ webhook, ...refused }).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", pointer: "/webhook" } });
    }
    const cron = await alice.crons.create("lead", { schedule: "0 9 * * *" });
    const refused = await sdkError(alice.crons.update(cron.cron_id, { webhook: "https://hooks.example.com/x" } as never));
    expect(refused).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", pointer: "/webhook" } });
    expect((await crons.getCron(cron.cron_id))?.payload).not.toHaveProperty("webhook");
  });

  it("a listener's promise holds a stateless fire's thread deletion until it settles", async () => {
    const cronStore = new MemoryCronStore();
    const own = new CronScheduler({ crons: cronStore, runs, store, clock, log: () => undefined });
    const cron = { cronId: "c-hold", owner: "alice", assistantId: "lead", threadId: null, schedule: "* * * * *", timezone: null, endTime: null, enabled: true, onRunCompleted: "delete" as const, payload: {}, request: { assistantId: "lead", input: { events: 1 } }, strategy: "enqueue" as const, metadata: {}, nextRunAt: iso(clock.now()), createdAt: iso(clock.now()), updatedAt: iso(clock.now()) };
    await cronStore.createCron(cron);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    own.onFire(() => held);
    const [fire] = await own.tick();
    const run = (fire as { run: { runId: string; threadId: string } }).run;
    await runs.join(run.runId);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await store.getThread(run.threadId)).not.toBeNull();
    release();
    await own.settled();
    expect(await store.getThread(run.threadId)).toBeNull();
  });
});
