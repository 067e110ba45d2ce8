import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { setKeelMeta } from "../../../kernel/loop/message-meta.js";
import { finishStop, LENGTH_FINISH, rawFinish, SAFETY_FINISH } from "../../../plugins/finish-reason/index.js";

const on = { safety: true, length: true };
const toolCall = { id: "c1", name: "write_file", args: { path: "x" }, type: "tool_call" as const };

function message(meta: Record<string, unknown>, content = "", calls = 0) {
  return new AIMessage({ content, tool_calls: Array.from({ length: calls }, (_, i) => ({ ...toolCall, id: `c${i + 1}` })), response_metadata: meta });
}

describe("rawFinish", () => {
  it("reads each provider's own field", () => {
    expect(rawFinish({ finish_reason: "content_filter" })).toEqual({ kind: "safety", field: "finish_reason", provider: "openai", raw: "content_filter" });
    expect(rawFinish({ stop_reason: "max_tokens" })).toEqual({ kind: "length", field: "stop_reason", provider: "anthropic", raw: "max_tokens" });
    expect(rawFinish({ finishReason: "RECITATION" })).toEqual({ kind: "safety", field: "finishReason", provider: "gemini", raw: "RECITATION" });
    expect(rawFinish({ finish_reason: "stop" })).toMatchObject({ kind: "other", raw: "stop" });
    expect(rawFinish({})).toBeNull();
    expect(rawFinish(undefined)).toBeNull();
    expect(rawFinish({ finish_reason: "" })).toBeNull();
  });

  it("classifies exactly the listed values", () => {
    for (const raw of SAFETY_FINISH) expect(rawFinish({ finishReason: raw })!.kind).toBe("safety");
    for (const raw of LENGTH_FINISH) expect(rawFinish({ finishReason: raw })!.kind).toBe("length");
    for (const raw of ["tool_calls", "end_turn", "STOP", "safety", "Length", "OTHER"]) expect(rawFinish({ finishReason: raw })!.kind).toBe("other");
  });

  it("prefers the most severe value when several fields are set", () => {
    expect(rawFinish({ finish_reason: "stop", stop_reason: "refusal" })).toMatchObject({ kind: "safety", provider: "anthropic" });
    expect(rawFinish({ finish_reason: "length", finishReason: "SAFETY" })).toMatchObject({ kind: "safety", provider: "gemini" });
    expect(rawFinish({ finish_reason: "stop", finishReason: "MAX_TOKENS" })).toMatchObject({ kind: "length", provider: "gemini" });
  });

  it("ignores the kernel's normalized copy", () => {
    const ai = setKeelMeta(message({ finish_reason: "stop" }, "", 1), { finish: { kind: "safety", raw: "refusal", provider: "anthropic" } }) as AIMessage;
    expect(finishStop(ai, on)).toBeNull();
  });
});

describe("finishStop", () => {
  it("ends the run on a safety finish with tool calls, whatever the text", () => {
    expect(finishStop(message({ stop_reason: "refusal" }, "Sure, writing.", 2), on)).toEqual({
      reason: "safety_capped",
      request: "end",
      detail: "anthropic stop_reason=refusal on a response with 2 tool calls (stripped, not run)",
    });
  });

  it("ends the run on a safety finish with blank text, and on one with text (kept as the answer, never a clean success)", () => {
    expect(finishStop(message({ finish_reason: "content_filter" }, "  \n"), on)).toEqual({
      reason: "safety_capped",
      request: "end",
      detail: "openai finish_reason=content_filter on a response with no text",
    });
    expect(finishStop(message({ finish_reason: "content_filter" }, "Partial answer"), on)).toEqual({
      reason: "safety_capped",
      request: "end",
      detail: "openai finish_reason=content_filter on a response with text and no tool calls (the text is kept as the answer)",
    });
    expect(finishStop(message({ finish_reason: "content_filter" }, "Partial answer"), { ...on, safety: false })).toBeNull();
  });

  it("forces a final answer on a length finish inside tool calls only", () => {
    expect(finishStop(message({ finishReason: "MAX_TOKENS" }, "", 1), on)).toEqual({
      reason: "model_length_capped",
      request: "final",
      detail: "gemini finishReason=MAX_TOKENS: output cut off inside 1 tool call (stripped, not run)",
    });
    expect(finishStop(message({ finish_reason: "length" }, "A long answer that was cut"), on)).toBeNull();
    expect(finishStop(message({ finish_reason: "length" }, ""), on)).toBeNull();
  });

  it("counts calls whose arguments did not parse", () => {
    const ai = new AIMessage({
      content: "",
      invalid_tool_calls: [{ id: "c9", name: "write_file", args: '{"path": "x", "content": "unterminated', error: "bad json", type: "invalid_tool_call" }],
      response_metadata: { stop_reason: "max_tokens" },
    });
    expect(finishStop(ai, on)).toMatchObject({ reason: "model_length_capped", request: "final" });
  });

  it("does nothing for a kind that is switched off", () => {
    expect(finishStop(message({ stop_reason: "refusal" }, "", 1), { safety: false, length: true })).toBeNull();
    expect(finishStop(message({ stop_reason: "max_tokens" }, "", 1), { safety: true, length: false })).toBeNull();
  });

  it("does nothing for ordinary finishes", () => {
    expect(finishStop(message({ finish_reason: "tool_calls" }, "", 1), on)).toBeNull();
    expect(finishStop(message({ stop_reason: "end_turn" }, ""), on)).toBeNull();
    expect(finishStop(message({}, "", 1), on)).toBeNull();
  });
});
