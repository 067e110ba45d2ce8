/**
 * Runs' `webhook` (docs/http.md, "Runs API"): the finished run POSTed to a
 * real local HTTP server, retries and the per-attempt timeout, and the host allowlist
 * (loopback refused unless named).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookSender } from "../../../plugins/gateway/webhook.js";
import { until } from "./harness.js";
import { sdkError, startRunsApi, startWebhookReceiver, type RunsApiHarness } from "./runs-api-harness.js";

describe("run webhooks through the SDK", () => {
  let h: RunsApiHarness;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    // The first request answers 500, the second never answers (timed out after 300 ms); then 200.
    receiver = await startWebhookReceiver([500, "hang"]);
    h = await startRunsApi({ webhooks: { allowHosts: ["127.0.0.1"], timeoutMs: 300, backoffMs: 1 } });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it("POSTs the finished run (Run fields, final status, values, times) as JSON, retrying a 500 and a timed-out attempt", async () => {
    const thread = await h.alice.threads.create();
    const run = await h.alice.runs.create(thread.thread_id, "lead", { input: { events: 2 }, webhook: receiver.url, metadata: { hook: "yes" } });
    await until(() => receiver.received.length >= 3, "three webhook attempts");
    const bodies = receiver.received.map((r) => r.body);
    // The same payload each time.
    expect(bodies[0]).toEqual({ ...bodies[2], webhook_sent_at: bodies[0]!.webhook_sent_at });
    expect(receiver.received[2]!.contentType).toBe("application/json");
    expect(bodies[2]).toMatchObject({
      run_id: run.run_id,
      thread_id: thread.thread_id,
      assistant_id: "lead",
      status: "success",
      metadata: { hook: "yes" },
      values: { turns: 2, messages: [{ content: `done ${run.run_id}` }] },
      outcome: { status: "succeeded" },
    });
    expect(Date.parse(bodies[2]!.run_ended_at as string)).not.toBeNaN();
    expect(Date.parse(bodies[2]!.webhook_sent_at as string)).not.toBeNaN();
    expect(bodies[2]).not.toHaveProperty("error");
  });

  it("a failed run's webhook carries `error`; a threadless run's too (sent after its thread is deleted)", async () => {
    const before = receiver.received.length;
    const failed = await h.alice.runs.create(null, "lead", { input: "fail", webhook: receiver.url });
    await until(() => receiver.received.some((r) => r.body.run_id === failed.run_id), "the failed run's webhook");
    expect(receiver.received.slice(before).find((r) => r.body.run_id === failed.run_id)!.body).toMatchObject({ status: "error", error: "scripted failure" });
    expect(await h.store.getThread(failed.thread_id)).toBeNull();
  });

  it("refuses at admission (400 KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED, `/webhook`) a host not on the list, a relative URL, another scheme, credentials", async () => {
    const thread = await h.alice.threads.create();
    for (const webhook of ["http://localhost:9/hook", "https://hooks.example.com/x", "/runs/hook", "ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x"]) {
      const refused = await sdkError(h.alice.runs.create(thread.thread_id, "lead", { input: "x", webhook }));
      expect({ webhook, ...refused }).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", pointer: "/webhook" } });
    }
    expect(await h.store.listRuns(thread.thread_id, { limit: 10, offset: 0 })).toEqual([]);
  });
});

describe("WebhookSender", () => {
  it("a wildcard never reaches loopback: `*` allows example.com but not localhost, 127.0.0.2 or ::1; a named loopback host is allowed", () => {
    const any = new WebhookSender({ allowHosts: ["*"] });
    expect(any.check("https://example.com/x")?.hostname).toBe("example.com");
    for (const url of ["http://localhost/x", "http://127.0.0.2/x", "http://[::1]/x", "http://app.localhost/x", "http://0.0.0.0/x"]) {
      expect(() => any.check(url), url).toThrow(/not allowed/);
    }
    const named = new WebhookSender({ allowHosts: ["LOCALHOST", "*.example.com"] });
    expect(named.check("http://localhost:8080/x")?.port).toBe("8080");
    expect(named.check("https://a.b.example.com/x")?.hostname).toBe("a.b.example.com");
    expect(() => named.check("https://example.com/x")).toThrow(/not allowed/);
    expect(() => named.check("https://evil-example.com/x")).toThrow(/not allowed/);
  });

  it("does not call a host that resolves to loopback unless it is named; a 4xx is not retried; 429 and 5xx are, up to `attempts`", async () => {
    const receiver = await startWebhookReceiver([404, 429, 503, 502]);
    try {
      const port = receiver.port;
      const rebinding = new WebhookSender({ allowHosts: ["*"], resolve: async () => ["127.0.0.1"] });
      expect(await rebinding.deliver(`http://hooks.example.com:${port}/hook`, {})).toMatchObject({ delivered: false, attempts: 0, reason: expect.stringContaining("loopback") });
      expect(receiver.received).toHaveLength(0);

      const sender = new WebhookSender({ allowHosts: ["127.0.0.1"], attempts: 3, backoffMs: 1 });
      expect(await sender.deliver(receiver.url, { n: 1 })).toEqual({ delivered: false, attempts: 1, status: 404, reason: "answered 404" });
      expect(await sender.deliver(receiver.url, { n: 2 })).toEqual({ delivered: false, attempts: 3, status: 502, reason: "answered 502" });
      expect(await sender.deliver(receiver.url, { n: 3 })).toEqual({ delivered: true, attempts: 1, status: 200 });
      expect(receiver.received.map((r) => r.body.n)).toEqual([1, 2, 2, 2, 3]);
      // A closing server sends nothing more.
      expect(await sender.deliver(receiver.url, { n: 4 }, AbortSignal.abort())).toMatchObject({ delivered: false, attempts: 0, reason: expect.stringContaining("closing") });
      expect(receiver.received).toHaveLength(5);
    } finally {
      await receiver.close();
    }
  });
});
