import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { METRIC } from "../../plugins/metrics/index.js";
import { ApiKeys, createGateway } from "../../plugins/gateway/index.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";
import { sample, total } from "../plugins/metrics/prometheus-text.js";
import { OtlpReceiver } from "../plugins/tracing/otlp-receiver.js";
import { DELEGATING_SCENARIO, USAGE } from "../plugins/tracing/scenario.js";
import { tempDir } from "./serve-process.js";
import { until } from "../runs/run-manager-harness.js";

/** `keel serve --model scripted:FILE --otlp-endpoint URL`, in process: runs with a subagent, then `/metrics`, `/info` and the spans. */
describe("keel serve: /metrics, /info and OTLP tracing", () => {
  let dir: string;
  let server: StartedServer;
  const receiver = new OtlpReceiver();
  let collector: string;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-observability-");
    collector = await receiver.start();
    const scenarioFile = join(dir, "delegating.scenario.json");
    writeFileSync(scenarioFile, JSON.stringify(DELEGATING_SCENARIO));
    const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${scenarioFile}`, "otlp-endpoint": collector }, {}, dir);
    server = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir, env: { LANGSMITH_TRACING: "true" } });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await receiver.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("after two runs, the series match the runs made", async () => {
    const before = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(before, METRIC.runsFinished, { status: "success", ended_by: "worker" })).toBeUndefined();
    const runIds: string[] = [];
    for (const attempt of [1, 2]) {
      const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
      const response = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "lead", input: "Report what notes.md says." });
      expect(response.status, `run ${attempt}`).toBe(200);
      runIds.push(response.headers.get("content-location")!.split("/").at(-1)!);
    }
    // `end` (which the wait answers after) comes before the worker forgets the execution: wait for that.
    await until(async () => sample(await (await fetch(`${server.url}/metrics`)).text(), METRIC.runsExecuting) === 0, "the worker to finish both executions");
    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(sample(text, METRIC.runsFinished, { status: "success", ended_by: "worker" })).toBe(2);
    expect(sample(text, METRIC.runsPending)).toBe(0);
    expect(sample(text, METRIC.runsRunning)).toBe(0);
    expect(sample(text, METRIC.runsExecuting)).toBe(0);
    const input = USAGE.leadDelegates.input_tokens + USAGE.leadAnswers.input_tokens + USAGE.childReads.input_tokens + USAGE.childReturns.input_tokens;
    const output = USAGE.leadDelegates.output_tokens + USAGE.leadAnswers.output_tokens + USAGE.childReads.output_tokens + USAGE.childReturns.output_tokens;
    expect(sample(text, METRIC.modelTokens, { direction: "input", model: "keel-scripted" })).toBe(2 * input);
    expect(sample(text, METRIC.modelTokens, { direction: "output", model: "keel-scripted" })).toBe(2 * output);
    // Four model calls per run (two of the lead, two of the child), each one latency observation.
    expect(sample(text, `${METRIC.modelDuration}_count`, { model: "keel-scripted", provider: "keel-scripted", purpose: "turn", outcome: "ok" })).toBe(8);
    expect(sample(text, METRIC.toolCalls, { tool: "task", status: "success" })).toBe(2);
    expect(sample(text, METRIC.toolCalls, { tool: "read_file", status: "success" })).toBe(2);
    expect(sample(text, METRIC.toolCalls, { tool: "return_result", status: "success" })).toBe(2);
    expect(total(text, METRIC.leaseExpirations)).toBe(0);
    // The memory bridge holds both runs' streams: as many events as their replays show.
    let events = 0;
    for (const runId of runIds) {
      const run = (await (await fetch(`${server.url}/threads/${(await runThread(runId))}/runs/${runId}/report`)).json()) as { events: unknown[] };
      events += run.events.length + 1; // the report's events stop before `end`
    }
    expect(sample(text, METRIC.bridgeRuns)).toBe(2);
    expect(sample(text, METRIC.bridgeEvents)).toBe(events);
    expect(sample(text, METRIC.bridgeBytes)).toBeGreaterThan(events * 10);
  });

  it("/info says what is on: the OTLP endpoint, LangSmith as the environment sets it, metrics", async () => {
    const info = (await (await fetch(`${server.url}/info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      name: "keel",
      flags: { assistants: true, crons: true, langsmith: true },
      tracing: { otlp: `${collector}/v1/traces`, langsmith: true },
      metrics: { prometheus: "/metrics" },
    });
  });

  it("the served runs were exported as spans: one trace per run, the child under its task span", async () => {
    await server.close();
    const roots = receiver.spans.filter((s) => s.parentSpanId === undefined);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent lead", "invoke_agent lead"]);
    expect(new Set(roots.map((s) => s.traceId)).size).toBe(2);
    for (const root of roots) {
      const inTrace = receiver.spans.filter((s) => s.traceId === root.traceId);
      const task = inTrace.find((s) => s.name === "execute_tool task")!;
      expect(task.parentSpanId).toBe(root.spanId);
      expect(inTrace.find((s) => s.name === "invoke_agent reader")!.parentSpanId).toBe(task.spanId);
      expect(root.attributes["keel.run.status"]).toBe("succeeded");
    }
  });

  const threads = new Map<string, string>();
  async function runThread(runId: string): Promise<string> {
    if (threads.size === 0) {
      const list = (await (await post("/threads/search", { limit: 10 })).json()) as { thread_id: string }[];
      for (const thread of list) {
        const runs = (await (await fetch(`${server.url}/threads/${thread.thread_id}/runs`)).json()) as { run_id: string }[];
        for (const run of runs) threads.set(run.run_id, thread.thread_id);
      }
    }
    return threads.get(runId)!;
  }
});

describe("GET /metrics on the gateway", () => {
  const metrics = { contentType: "text/plain; version=0.0.4; charset=utf-8", render: async () => "keel_up 1\n" };

  it("needs an API key when keys are configured, like every route but /ok and /info", async () => {
    const app = await createGateway({ deps: {} as never, apiKeys: new ApiKeys([["key-1", "alice"]]), stacks: ["lead"], version: "test", metrics });
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    const ok = await app.inject({ method: "GET", url: "/metrics", headers: { authorization: "Bearer key-1" } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe("keel_up 1\n");
    expect(ok.headers["content-type"]).toBe(metrics.contentType);
    await app.close();
  });

  it("is a 404 when the host serves no metrics, and /info says so", async () => {
    const app = await createGateway({ deps: {} as never, stacks: ["lead"], version: "test" });
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(404);
    expect(JSON.parse((await app.inject({ method: "GET", url: "/info" })).body)).toMatchObject({ flags: { langsmith: false }, tracing: { otlp: null, langsmith: false }, metrics: { prometheus: null } });
    await app.close();
  });
});
