import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, tempDir, type ServeProcess } from "../serve-process.js";
import type { ProviderDialect } from "./dialects.js";
import { guardsOf, journalOf, runOnce, writeE2eStack, type FinishedRun } from "./keel-http.js";
import { startScriptedServer, type ScriptedServer } from "./scripted-http.js";

/** Silence bound of the served clients in these tests (ms). */
const IDLE_MS = 400;
/** error-fallback in the served stack: short jittered waits, a breaker that stays out of the way. */
const ERROR_FALLBACK = { baseMs: 100, capMs: 200, breakerFailures: 1000 };

const statuses = (run: FinishedRun, kind: string) => journalOf(run, kind).map((e) => e.status);

/**
 * `keel serve --model <provider>:fake-model` with the real LangChain client of the
 * provider, against a fake of its HTTP API on loopback: each test scripts the fake's
 * replies, runs one request through the gateway, and checks the outcome, stop reasons,
 * guard events and journal entries the run recorded.
 */
export function describeProvider(dialect: ProviderDialect): void {
  describe(`keel serve --model ${dialect.name}:… over real HTTP`, () => {
    let dir: string;
    let fake: ScriptedServer;
    let keel: ServeProcess;
    let assistant: string;

    /** Run `input`, returning the run and the provider requests it made. */
    const run = async (input: string, options: { stream?: boolean } = {}) => {
      const mark = fake.requests.length;
      const result = await runOnce(keel.url, assistant, input, options);
      return { ...result, requests: fake.since(mark) };
    };

    beforeAll(async () => {
      fake = await startScriptedServer(dialect.paths);
      dir = tempDir(`keel-e2e-${dialect.name}-`);
      assistant = writeE2eStack(dir, ERROR_FALLBACK);
      keel = await startServe(["--port", "0", "--db", `sqlite:${dir}/keel.db`, "--stack", assistant, "--model", `${dialect.name}:fake-model`, "--max-tokens", "321"], {
        cwd: dir,
        env: { ...dialect.env(fake.origin), KEEL_PROVIDER_IDLE_MS: String(IDLE_MS) },
      });
    }, 40_000);

    afterAll(async () => {
      await keel?.stop();
      await fake?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("runs a tool call: the tool runs, its result goes back, the answer ends the run; one request per turn", async () => {
      fake.script(dialect.answer({ toolCalls: [{ id: "call_w1", name: "write_file", args: { path: "notes.txt", content: "hello" } }] }), dialect.answer({ text: "Wrote notes.txt." }));
      const r = await run("Write hello to notes.txt.");
      expect(r.outcome).toMatchObject({ status: "succeeded", text: "Wrote notes.txt.", stopReasons: [] });
      expect(r.requests).toHaveLength(2);
      expect(r.requests[0]!.body.model).toBe("fake-model");
      expect(r.requests[0]!.body.max_tokens ?? r.requests[0]!.body.max_completion_tokens).toBe(321);
      expect(dialect.toolNames(r.requests[0]!)).toEqual(expect.arrayContaining(["write_file", "read_file", "ls"]));
      expect(dialect.toolResults(r.requests[1]!)).toEqual([expect.stringContaining("wrote 5 bytes to notes.txt")]);
      expect(journalOf(r, "tool_call").map((e) => ({ name: e.name, status: e.status }))).toEqual([{ name: "write_file", status: "success" }]);
      expect(statuses(r, "model_call")).toEqual(["ok", "ok"]);
      expect(guardsOf(r)).toEqual([]);
      // The client's own retries are off, so serve warns about none.
      expect(keel.output().stderr).not.toMatch(/KEEL_WARN_MODEL_RETRIES/);
    });

    it("streams text tokens and tool-call chunks to the client as the provider sends them", async () => {
      fake.script(dialect.answer({ text: "Listing the workspace.", toolCalls: [{ id: "call_l1", name: "ls", args: { path: "." } }] }), dialect.answer({ text: "The workspace is empty." }));
      const r = await run("What is in the workspace?", { stream: true });
      expect(r.outcome).toMatchObject({ status: "succeeded", text: "The workspace is empty.", stopReasons: [] });
      expect(r.requests.map((q) => q.body.stream)).toEqual([true, true]);
      const chunks = r.received.filter((e) => e.event === "messages").map((e) => (e.data as [{ content: string; tool_call_chunks: Array<{ name?: string; args?: string }> }, unknown])[0]);
      // The first answer's text arrived in the two pieces the provider sent.
      expect(chunks.map((c) => c.content).filter((t) => t !== "").slice(0, 2)).toEqual(["Listing the", " workspace."]);
      // The tools step's messages (tool results) come in this mode too, without tool-call chunks.
      const toolChunks = chunks.flatMap((c) => c.tool_call_chunks ?? []);
      expect(toolChunks.find((c) => c.name)?.name).toBe("ls");
      expect(toolChunks.filter((c) => c.args).length).toBeGreaterThan(1);
      expect(toolChunks.map((c) => c.args ?? "").join("")).toBe('{"path":"."}');
      expect(journalOf(r, "tool_call").map((e) => ({ name: e.name, status: e.status }))).toEqual([{ name: "ls", status: "success" }]);
    });

    it("honours a 429's Retry-After: exactly one retry, its scheduled delay journaled (1000 ms)", async () => {
      fake.script(dialect.error(429, "Rate limit reached for requests", { headers: { "retry-after": "1" } }), dialect.answer({ text: "Made it." }));
      const r = await run("Say something.");
      expect(r.outcome).toMatchObject({ status: "succeeded", text: "Made it.", stopReasons: [] });
      expect(r.requests).toHaveLength(2);
      expect(guardsOf(r)).toEqual([
        { plugin: "error-fallback", agent: "lead", action: "retry", reason: "rate_limited", detail: "attempt 2/3 after 1000 ms: 429 Rate limit reached for requests", retryInMs: 1000 },
      ]);
      expect(journalOf(r, "guard").map((e) => ({ name: e.name, status: e.status, retryInMs: e.retryInMs }))).toEqual([{ name: "error-fallback", status: "retry", retryInMs: 1000 }]);
      expect(statuses(r, "model_call")).toEqual(["error", "ok"]);
      // Wall time only as a lower bound: the retry waited what the provider asked.
      expect(r.wallMs).toBeGreaterThanOrEqual(1000);
    });

    it("retries a 500 exactly `attempts` times with jittered delays within the cap, then fails retryable with the provider's message once", async () => {
      fake.script(...[1, 2, 3].map(() => dialect.error(500, "The server had an error while processing your request")));
      const r = await run("Say something.");
      expect(r.requests).toHaveLength(3);
      expect(r.outcome).toMatchObject({ status: "failed", stopReasons: [], error: { type: "server_error", message: "The server had an error while processing your request", retryable: true } });
      expect(r.outcome.text).not.toMatch(/Troubleshooting|500 500|status code/);
      const guards = guardsOf(r);
      expect(guards.map((g) => [g.action, g.reason])).toEqual([
        ["retry", "server_error"],
        ["retry", "server_error"],
      ]);
      expect(guards[0]!.detail).toBe(`attempt 2/3 after ${guards[0]!.retryInMs} ms: 500 The server had an error while processing your request`);
      // Full jitter: in [0, baseMs] then [0, min(capMs, 2·baseMs)].
      expect(guards[0]!.retryInMs).toBeGreaterThanOrEqual(0);
      expect(guards[0]!.retryInMs).toBeLessThanOrEqual(100);
      expect(guards[1]!.retryInMs).toBeLessThanOrEqual(200);
      expect(journalOf(r, "guard").map((e) => e.retryInMs)).toEqual(guards.map((g) => g.retryInMs));
      expect(statuses(r, "model_call")).toEqual(["error", "error", "error"]);
    });

    it.each([
      [400, "provider_error", "max_tokens is too large for this model", undefined],
      [401, "auth", "Incorrect API key provided", undefined],
      [429, "quota", "You exceeded your current quota, please check your plan and billing details", "insufficient_quota"],
    ])("never retries a %i (%s)", async (status, type, message, code) => {
      fake.script(dialect.error(status, message, code ? { code, headers: { "retry-after": "1" } } : {}));
      const r = await run("Say something.");
      expect(r.requests).toHaveLength(1);
      expect(r.outcome).toMatchObject({ status: "failed", stopReasons: [], error: { type, message, retryable: false } });
      expect(r.outcome.text).not.toMatch(/Troubleshooting|https?:/);
      expect(guardsOf(r)).toEqual([]);
      expect(journalOf(r, "guard")).toEqual([]);
      expect(statuses(r, "model_call")).toEqual(["error"]);
    });

    it("retries a stream whose connection drops mid-response", async () => {
      fake.script(dialect.cut("Partial ans", "drop"), dialect.answer({ text: "Full answer." }));
      const r = await run("Answer me.", { stream: true });
      expect(r.outcome).toMatchObject({ status: "succeeded", text: "Full answer.", stopReasons: [] });
      expect(r.requests).toHaveLength(2);
      const guards = guardsOf(r);
      expect(guards).toHaveLength(1);
      expect(guards[0]).toMatchObject({ plugin: "error-fallback", action: "retry", reason: "network" });
      expect(guards[0]!.retryInMs).toBeLessThanOrEqual(100);
      expect(journalOf(r, "guard").map((e) => ({ name: e.name, status: e.status, retryInMs: e.retryInMs }))).toEqual([{ name: "error-fallback", status: "retry", retryInMs: guards[0]!.retryInMs }]);
      expect(statuses(r, "model_call")).toEqual(["error", "ok"]);
    });

    it(`fails a stalled stream after KEEL_PROVIDER_IDLE_MS (${IDLE_MS} ms) of silence as a timeout, and retries it`, async () => {
      fake.script(dialect.cut("Partial", "stall"), dialect.answer({ text: "After the stall." }));
      const r = await run("Answer me.", { stream: true });
      expect(r.outcome).toMatchObject({ status: "succeeded", text: "After the stall.", stopReasons: [] });
      expect(r.requests).toHaveLength(2);
      expect(guardsOf(r).map((g) => [g.action, g.reason])).toEqual([["retry", "timeout"]]);
      expect(guardsOf(r)[0]!.detail).toMatch(new RegExp(`sent nothing for ${IDLE_MS} ms`));
      expect(journalOf(r, "guard").map((e) => [e.name, e.status, e.retryInMs])).toEqual([["error-fallback", "retry", guardsOf(r)[0]!.retryInMs]]);
      expect(statuses(r, "model_call")).toEqual(["error", "ok"]);
      expect(r.wallMs).toBeGreaterThanOrEqual(IDLE_MS);
    });

    it(`stops on a safety finish (${dialect.raw.safety}) with a tool call: the call never runs, no further model call, safety_capped`, async () => {
      fake.script(dialect.answer({ toolCalls: [{ id: "call_s1", name: "write_file", args: { path: "x.txt", content: "x" } }], finish: "safety" }));
      const r = await run("Do something unsafe.");
      expect(r.requests).toHaveLength(1);
      expect(r.outcome.status).toBe("failed");
      expect(r.outcome.error?.type).toBe("safety_capped");
      expect(r.outcome.stopReasons).toEqual([expect.objectContaining({ reason: "safety_capped", by: "finish-reason", detail: expect.stringContaining(dialect.raw.safety) })]);
      expect(guardsOf(r)).toEqual([expect.objectContaining({ plugin: "finish-reason", action: "stop", reason: "safety_capped" })]);
      expect(journalOf(r, "guard").map((e) => [e.name, e.status])).toEqual([["finish-reason", "stop"]]);
      expect(journalOf(r, "tool_call")).toEqual([]);
      expect(statuses(r, "model_call")).toEqual(["ok"]);
    });

    it(`strips tool calls cut by a length finish (${dialect.raw.length}) and forces one final answer without tools: partial`, async () => {
      fake.script(dialect.answer({ toolCalls: [{ id: "call_len1", name: "write_file", args: { path: "big.txt", content: "half a fi" } }], finish: "length" }), dialect.answer({ text: "Here is what I have so far." }));
      const r = await run("Write a big file.");
      expect(r.requests).toHaveLength(2);
      expect(dialect.toolNames(r.requests[1]!)).toEqual([]);
      expect(r.outcome).toMatchObject({ status: "partial", text: "Here is what I have so far." });
      expect(r.outcome.stopReasons).toEqual([expect.objectContaining({ reason: "model_length_capped", by: "finish-reason" })]);
      expect(guardsOf(r)).toEqual([expect.objectContaining({ plugin: "finish-reason", action: "stop", reason: "model_length_capped" })]);
      expect(journalOf(r, "guard").map((e) => [e.name, e.status])).toEqual([["finish-reason", "stop"]]);
      expect(journalOf(r, "tool_call")).toEqual([]);
      expect(statuses(r, "model_call")).toEqual(["ok", "ok"]);
    });
  });
}
