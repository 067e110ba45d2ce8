import { createServer, type IncomingMessage, type Server } from "node:http";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { serverModelAllowlist } from "../../tools/serve/model-spec.js";
import type { RunModels } from "../../tools/serve/run-models.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";
import { loadSummaryModels } from "../../tools/serve/summary-models.js";
import { tempDir } from "./serve-process.js";
import { useOpenAiEndpoint } from "./provider-env.js";

type ChatRequest = { model: string; messages: { role: string; content: unknown }[] };
const SUMMARY = "SUMMARY from the summary model";
const TASK = "Run three echo commands through bash, then say Done.";
const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content ?? ""));
const isSummaryCall = (request: ChatRequest) => text(request.messages[0]?.content).startsWith("Summarize the conversation below");

/** An OpenAI-compatible endpoint: summary calls get a summary; the lead makes three bash calls, then answers. */
function fakeOpenAi(): Promise<{ server: Server; baseURL: string; requests: ChatRequest[] }> {
  const requests: ChatRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const toolResults = request.messages.filter((m) => m.role === "tool").length;
      const leadTurns = requests.filter((r) => !isSummaryCall(r)).length;
      let message: Record<string, unknown>;
      let usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (isSummaryCall(request)) {
        message = { role: "assistant", content: SUMMARY };
        usage = { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 };
      } else if (leadTurns <= 3 && toolResults < 3) {
        message = { role: "assistant", content: null, tool_calls: [{ id: `call_${leadTurns}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `echo ${leadTurns}` }) } }] };
      } else {
        message = { role: "assistant", content: "Done." };
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ id: `chatcmpl-${requests.length}`, object: "chat.completion", created: 1, model: request.model, choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }], usage }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, requests })));
}

/** The lead stack with summarization compacting early (after 4 messages, keeping 1). */
function compactingStack(dir: string): string {
  const lead = JSON.parse(readFileSync(join(packageRoot(), "plugins", "stacks", "lead.json"), "utf8")) as { plugins: unknown[] } & Record<string, unknown>;
  const plugins = lead.plugins.map((p) => (p === "summarization" ? { name: "summarization", config: { triggerMessages: 4, keepMessages: 1 } } : p));
  const file = join(dir, "compacting.json");
  writeFileSync(file, JSON.stringify({ ...lead, name: "compacting", plugins }));
  return file;
}

describe("keel serve --model openai:… --summarizer-model openai:…", () => {
  let dir: string;
  let keel: StartedServer;
  let fake: Awaited<ReturnType<typeof fakeOpenAi>>;
  let stack: string;
  const endpoint = useOpenAiEndpoint(() => fake.baseURL);

  beforeAll(async () => {
    fake = await fakeOpenAi();
    dir = tempDir("keel-e2e-summarizer-");
    stack = compactingStack(dir);
    endpoint.apply();
    const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: "openai:local-model", "summarizer-model": "openai:summary-model", stack: [stack] }, {}, dir);
    keel = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  }, 30_000);

  afterAll(async () => {
    await keel?.close();
    fake?.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    endpoint.restore();
  });

  it("summarizes with the summary model: journaled, counted in usage, not a turn, and the task stays in the next request", async () => {
    const json = { "content-type": "application/json" };
    const thread = (await (await fetch(`${keel.url}/threads`, { method: "POST", headers: json, body: "{}" })).json()) as { thread_id: string };
    const response = await fetch(`${keel.url}/threads/${thread.thread_id}/runs/wait`, { method: "POST", headers: json, body: JSON.stringify({ assistant_id: stack, input: TASK }) });
    expect(response.status).toBe(200);
    const values = (await response.json()) as { messages: { type: string; content: string }[] };
    expect(values.messages.at(-1)).toMatchObject({ type: "ai", content: "Done." });

    // Summary calls went to the summary model, turns to the run's model.
    const summaries = fake.requests.filter(isSummaryCall);
    const turns = fake.requests.filter((r) => !isSummaryCall(r));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.every((r) => r.model === "summary-model")).toBe(true);
    expect(turns.every((r) => r.model === "local-model")).toBe(true);
    expect(text(summaries[0]!.messages[1]!.content)).toContain(`human: ${TASK}`);

    // The request after the first summary carries the summary and the task, verbatim.
    const afterSummary = fake.requests.slice(fake.requests.indexOf(summaries[0]!) + 1).find((r) => !isSummaryCall(r))!;
    expect(afterSummary.messages.some((m) => text(m.content).includes(SUMMARY))).toBe(true);
    expect(afterSummary.messages.some((m) => m.role === "user" && m.content === TASK)).toBe(true);

    const [run] = (await (await fetch(`${keel.url}/threads/${thread.thread_id}/runs`)).json()) as Array<{ run_id: string }>;
    const journal = (await (await fetch(`${keel.url}/threads/${thread.thread_id}/runs/${run!.run_id}/journal`)).json()) as Array<{ kind: string; name?: string; status: string; usage?: unknown }>;
    const summaryEntries = journal.filter((e) => e.kind === "model_call" && e.name === "summarize");
    expect(summaryEntries).toHaveLength(summaries.length);
    expect(summaryEntries[0]).toMatchObject({ status: "ok", usage: { inputTokens: 50, outputTokens: 7, totalTokens: 57 } });

    const report = (await (await fetch(`${keel.url}/threads/${thread.thread_id}/runs/${run!.run_id}/report`)).json()) as { turns: { lead: number }; usage: { totalTokens: number } };
    expect(report.turns.lead).toBe(turns.length);
    expect(report.usage.totalTokens).toBe(turns.length * 15 + summaries.length * 57);
  });
});

describe("--summarizer-model", () => {
  it("takes the --model syntax, only for real models, and joins the server's model allowlist", () => {
    const options = resolveServeOptions({ model: "openai:gpt-main", "summarizer-model": "anthropic:claude-small" }, {}, "/tmp");
    expect(options.summarizerModel).toEqual({ kind: "anthropic", model: "claude-small" });
    expect(serverModelAllowlist(options.model, options.summarizerModel)).toEqual(["gpt-main", "openai:gpt-main", "claude-small", "anthropic:claude-small"]);
    expect(serverModelAllowlist(options.model, undefined)).toEqual(["gpt-main", "openai:gpt-main"]);
    expect(() => resolveServeOptions({ "summarizer-model": "demo" }, {}, "/tmp")).toThrow(/--summarizer-model `demo` must be openai:MODEL or anthropic:MODEL/);
    expect(() => resolveServeOptions({ "summarizer-model": "openai:" }, {}, "/tmp")).toThrow(/--summarizer-model `openai:` needs a MODEL/);
    expect(() => resolveServeOptions({ "summarizer-model": "gemini:x" }, {}, "/tmp")).toThrow(/--summarizer-model `gemini:x` is not one of/);
  });

  it("defaults: a real --model summarizes with the run's model; demo and scripted keep the deterministic summarizer", async () => {
    const made: string[] = [];
    const runModels = { forLead: (runId: string) => (made.push(runId), { runId }), forChild: () => ({}), childTypes: [] } as unknown as RunModels;
    const real = await loadSummaryModels({ kind: "openai", model: "m" }, undefined, runModels);
    expect(real!("run-7")).toEqual({ runId: "run-7" });
    expect(made).toEqual(["run-7"]);
    expect(await loadSummaryModels({ kind: "demo" }, undefined, runModels)).toBeUndefined();
    expect(await loadSummaryModels({ kind: "scripted", file: "/x.json" }, undefined, runModels)).toBeUndefined();
  });
});
