import { createServer, type IncomingMessage, type Server } from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";
import { tempDir } from "./serve-process.js";
import { useOpenAiEndpoint } from "./provider-env.js";

/** A minimal OpenAI-compatible chat completions endpoint: a bash call first, then an answer. */
function fakeOpenAi(): Promise<{ server: Server; baseURL: string; requests: { model: string; messages: { role: string; content: unknown }[]; tools?: unknown[] }[] }> {
  const requests: { model: string; messages: { role: string; content: unknown }[]; tools?: unknown[] }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const request = JSON.parse(body) as (typeof requests)[number];
      requests.push(request);
      const first = !request.messages.some((m) => m.role === "tool");
      const message = first
        ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: "echo hi" }) } }] }
        : { role: "assistant", content: "The bash tool said it is disabled." };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 1,
          model: request.model,
          choices: [{ index: 0, message, finish_reason: first ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, requests })));
}

describe("keel serve --model openai:MODEL against an OpenAI-compatible server", () => {
  let dir: string;
  let keel: StartedServer;
  let fake: Awaited<ReturnType<typeof fakeOpenAi>>;
  const endpoint = useOpenAiEndpoint(() => fake.baseURL);

  beforeAll(async () => {
    fake = await fakeOpenAi();
    dir = tempDir("keel-e2e-openai-");
    endpoint.apply();
    const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: "openai:local-model" }, {}, dir);
    expect(options.bash).toBe("off");
    keel = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  }, 30_000);

  afterAll(async () => {
    await keel?.close();
    fake?.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    endpoint.restore();
  });

  it("runs the lead on the endpoint's model, with bash off by default", async () => {
    const thread = (await (await fetch(`${keel.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const response = await fetch(`${keel.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead", input: "Say hi through bash." }),
    });
    expect(response.status).toBe(200);
    const values = (await response.json()) as { messages: { type: string; content: string }[] };
    expect(values.messages.at(-1)).toMatchObject({ type: "ai", content: "The bash tool said it is disabled." });
    const tool = values.messages.find((m) => m.type === "tool");
    expect(tool?.content).toMatch(/disabled/i);
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
    expect(fake.requests.every((r) => r.model === "local-model")).toBe(true);
    expect(fake.requests[0]!.messages.some((m) => m.role === "user" && m.content === "Say hi through bash.")).toBe(true);
  });
});
