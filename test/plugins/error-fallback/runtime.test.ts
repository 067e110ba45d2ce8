import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { describe, expect, it, vi } from "vitest";
import { validate } from "../../../contracts/registry.js";
import { compose } from "../../../kernel/compose/index.js";
import { ownModelRetries, warnOnModelRetries } from "../../../kernel/loop/model-retries.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { ScriptedChatModel } from "../../../tools/testing/scripted-model.js";
import { createErrorFallbackPlugin } from "../../../plugins/error-fallback/index.js";
import { runWith } from "../../loop/harness.js";

describe("error-fallback in the runtime", () => {
  it("journals every retry with the delay it scheduled (retryInMs), as the guard event says", async () => {
    const sleeps: number[] = [];
    const plugin = createErrorFallbackPlugin({ sleep: async (ms) => void sleeps.push(ms), random: () => 0.25 });
    const run = await runWith([plugin], { turns: [{ content: "Done." }] }, { faults: [{ agent: "lead", turn: 1, times: 2, error: { status: 503, message: "unavailable" } }] });
    expect(run.outcome, JSON.stringify(run.outcome)).toMatchObject({ status: "succeeded" });
    // random 0.25: a quarter of min(8000, 1000·2^(n−1)).
    expect(sleeps).toEqual([250, 500]);
    const guards = run.events.filter((e) => e.event === "guard");
    expect(guards.map((e) => (e.data as { retryInMs?: number }).retryInMs)).toEqual([250, 500]);
    const entries = run.journal.filter((e) => e.kind === "guard");
    expect(entries.map((e) => ({ name: e.name, status: e.status, retryInMs: e.retryInMs }))).toEqual([
      { name: "error-fallback", status: "retry", retryInMs: 250 },
      { name: "error-fallback", status: "retry", retryInMs: 500 },
    ]);
    // Both records are valid under their (compatibly extended) contracts.
    for (const entry of entries) expect(validate("journal-entry@1", entry).valid).toBe(true);
    for (const event of guards) expect(validate("stream-event@1", event).valid).toBe(true);
  });
});

describe("a model passed in with its own retries on", () => {
  const openai = (maxRetries?: number) => new ChatOpenAI({ model: "m", apiKey: "k", ...(maxRetries === undefined ? {} : { maxRetries }) }) as unknown as BaseChatModel;
  const anthropic = (maxRetries?: number) => new ChatAnthropic({ model: "m", apiKey: "k", ...(maxRetries === undefined ? {} : { maxRetries }) }) as unknown as BaseChatModel;

  it("is detected on ChatOpenAI and ChatAnthropic (LangChain's default is 6), not on maxRetries: 0 nor on local models", () => {
    expect(ownModelRetries(openai())).toBe(6);
    expect(ownModelRetries(anthropic(2))).toBe(2);
    expect(ownModelRetries(openai(0))).toBe(0);
    expect(ownModelRetries(anthropic(0))).toBe(0);
    // A scripted model has an AsyncCaller too (maxRetries 6) but never calls through it.
    expect(ownModelRetries(new ScriptedChatModel({ script: { turns: [] } }))).toBe(0);
  });

  it("makes createAgentRuntime warn once (KEEL_WARN_MODEL_RETRIES), and never for maxRetries: 0", () => {
    const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const composition = compose({ name: "t", plugins: [createErrorFallbackPlugin()] });
      createAgentRuntime(composition, { model: openai(0) });
      expect(spy).not.toHaveBeenCalled();
      createAgentRuntime(composition, { model: openai(3) });
      createAgentRuntime(composition, { model: openai(3) });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toMatch(/^ChatOpenAI retries failed calls on its own \(maxRetries 3\); build it with maxRetries: 0/);
      expect(spy.mock.calls[0]![1]).toEqual({ type: "KeelWarning", code: "KEEL_WARN_MODEL_RETRIES" });
    } finally {
      spy.mockRestore();
    }
  });

  it("warns through an injected emitter", () => {
    const emitted: string[] = [];
    warnOnModelRetries(anthropic(4), (message) => emitted.push(message));
    warnOnModelRetries(anthropic(4), (message) => emitted.push(message));
    expect(emitted).toEqual([expect.stringMatching(/^ChatAnthropic retries failed calls on its own \(maxRetries 4\)/)]);
  });
});
