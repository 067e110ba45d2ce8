import { describe, expect, it } from "vitest";
import { sanitizeRunRequest } from "../../kernel/runs/request-hygiene.js";
import { toRuntimeInput } from "../../kernel/runs/runtime-input.js";
import { builtinRuntimeOwnedKeys } from "./builtin-owned-keys.js";

const limits = { maxTurns: 500 };

describe("request hygiene", () => {
  it("removes `__` keys at any depth of input, config, metadata and context", () => {
    const clean = sanitizeRunRequest(
      {
        assistantId: "lead",
        input: { messages: [{ role: "user", content: "hi", __x: 1, nested: { __y: 2, z: 3 } }], __keel: { route: "end" } },
        config: { __pregel_checkpointer: "x", tags: ["a"] },
        metadata: { a: { __b: 1, c: [{ __d: 1, e: 2 }] } },
        context: { __proto__x: 1 },
      },
      limits,
    );
    expect(clean).toEqual({
      assistantId: "lead",
      input: { messages: [{ role: "user", content: "hi", nested: { z: 3 } }] },
      config: { tags: ["a"] },
      metadata: { a: { c: [{ e: 2 }] } },
      context: {},
    });
  });

  it("a JSON `__proto__` key is data, and removed like any other `__` key", () => {
    const parsed = JSON.parse('{"assistantId":"lead","input":"x","metadata":{"__proto__":{"polluted":true},"ok":1}}');
    const clean = sanitizeRunRequest(parsed, limits);
    expect(clean.metadata).toEqual({ ok: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("strips caller-supplied receipts and verdicts (the built-in stacks' runtime-owned keys), and Keel's message metadata", async () => {
    const runtimeOwnedKeys = await builtinRuntimeOwnedKeys();
    const clean = sanitizeRunRequest(
      {
        assistantId: "lead",
        input: {
          messages: [
            { role: "assistant", content: "done", additional_kwargs: { keel: { errorFallback: null }, refusal: null } },
            { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "x", additional_kwargs: { keel: { hidden: true } } } },
          ],
          receipts: [{ id: "r1" }],
          bashRuns: [],
        },
        metadata: { receiptVerdict: "pass", acceptance_verdict: "pass", deep: { receipts: [1], keep: true } },
        context: { acceptanceVerdict: { ok: true } },
        config: { metadata: { receipt_verdict: "x", user: "u" } },
      },
      { ...limits, runtimeOwnedKeys },
    );
    expect(clean.input).toEqual({
      messages: [
        { role: "assistant", content: "done", additional_kwargs: { refusal: null } },
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "x", additional_kwargs: {} } },
      ],
    });
    expect(clean.metadata).toEqual({ deep: { keep: true } });
    expect(clean.context).toEqual({});
    expect(clean.config).toEqual({ metadata: { user: "u" } });
  });

  it("takes the address from the URL and clamps limits to the server maximum", () => {
    const clean = sanitizeRunRequest(
      {
        assistantId: "lead",
        input: "x",
        maxTurns: 1e9,
        config: { recursion_limit: 1e9, recursionLimit: "lots" as unknown as number, configurable: { thread_id: "t-other", checkpoint_id: "c", checkpoint_ns: "n", run_id: "r", user_setting: 1 } },
      },
      { maxTurns: 100 },
    );
    expect(clean.maxTurns).toBe(100);
    expect(clean.config).toEqual({ recursion_limit: 210, configurable: { user_setting: 1 } });
    expect(sanitizeRunRequest({ assistantId: "lead", input: "x", maxTurns: 0 }, limits).maxTurns).toBe(1);
    expect(sanitizeRunRequest({ assistantId: "lead", input: "x", maxTurns: 12.7 }, limits).maxTurns).toBe(12);
    expect("maxTurns" in sanitizeRunRequest({ assistantId: "lead", input: "x" }, limits)).toBe(false);
  });

  it("refuses a request without an assistant, or one that is not JSON data", () => {
    expect(() => sanitizeRunRequest({ assistantId: "", input: "x" }, limits)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID", pointer: "/assistantId" }));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => sanitizeRunRequest({ assistantId: "lead", input: cyclic }, limits)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
  });
});

describe("runtime input", () => {
  it("accepts a string, LangGraph messages and serialized LangChain messages", () => {
    expect(toRuntimeInput("hello")).toBe("hello");
    const messages = toRuntimeInput({
      messages: [
        { role: "system", content: "be brief" },
        { type: "human", content: "hi", id: "m1" },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] },
        { role: "tool", content: "a.txt", tool_call_id: "c1" },
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "again", additional_kwargs: { keel: { hidden: true } } } },
      ],
    }) as import("@langchain/core/messages").BaseMessage[];
    expect(messages.map((m) => m.getType())).toEqual(["system", "human", "ai", "tool", "human"]);
    expect(messages[1]!.id).toBe("m1");
    expect(messages[4]!.additional_kwargs).toEqual({});
  });

  it("names the bad value with a JSON pointer", () => {
    expect(() => toRuntimeInput(42)).toThrow(expect.objectContaining({ code: "KEEL_ERR_RUN_INPUT_INVALID", pointer: "/input" }));
    expect(() => toRuntimeInput({ messages: [{ role: "wizard", content: "x" }] })).toThrow(expect.objectContaining({ pointer: "/input/messages/0/role" }));
    expect(() => toRuntimeInput({ messages: [{ role: "tool", content: "x" }] })).toThrow(expect.objectContaining({ pointer: "/input/messages/0/tool_call_id" }));
  });
});

describe("model allowlist", () => {
  const allowed = { maxTurns: 100, allowedModels: ["openai:gpt-x", "gpt-x"] };

  it("accepts a request that names an allowed model, or none", () => {
    expect(sanitizeRunRequest({ assistantId: "lead", input: "hi", config: { configurable: { model: "gpt-x" } } }, allowed).config).toEqual({ configurable: { model: "gpt-x" } });
    expect(sanitizeRunRequest({ assistantId: "lead", input: "hi" }, allowed).assistantId).toBe("lead");
  });

  it("refuses any other model with a coded error and the pointer of the field", () => {
    expect(() => sanitizeRunRequest({ assistantId: "lead", input: "hi", config: { configurable: { model: "gpt-expensive" } } }, allowed)).toThrow(
      expect.objectContaining({ code: "KEEL_ERR_RUN_MODEL_NOT_ALLOWED", pointer: "/config/configurable/model" }),
    );
    expect(() => sanitizeRunRequest({ assistantId: "lead", input: "hi", context: { model: 42 } }, allowed)).toThrow(expect.objectContaining({ pointer: "/context/model" }));
    // Without an allowlist every model passes.
    expect(sanitizeRunRequest({ assistantId: "lead", input: "hi", context: { model: "anything" } }, { maxTurns: 100 }).context).toEqual({ model: "anything" });
  });
});
