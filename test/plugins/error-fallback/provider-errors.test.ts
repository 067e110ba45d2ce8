import { ChatAnthropic } from "@langchain/anthropic";
import { OpenAIClient, wrapOpenAIClientError } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { ModelCallError } from "../../../kernel/loop/model-call.js";
import { classifyProviderError, cleanProviderMessage } from "../../../plugins/error-fallback/index.js";

// The SDKs' own error classes, reached through the LangChain packages (the SDKs are their dependencies, not ours).
const OpenAIError = OpenAIClient.APIError;
type ErrorFactory = { generate(status: number, body: unknown, message: string | undefined, headers: Headers): Error };
const AnthropicError = (new ChatAnthropic({ model: "m", apiKey: "k" }).createClient({ apiKey: "k" }).constructor as unknown as { APIError: ErrorFactory }).APIError;

/** Errors as the real SDKs build them from an HTTP answer, wrapped as LangChain and the kernel wrap them. */
function openAiError(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return new ModelCallError(wrapOpenAIClientError(OpenAIError.generate(status, { error: body }, undefined, new Headers(headers))));
}

function anthropicError(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return new ModelCallError(AnthropicError.generate(status, body, undefined, new Headers(headers)));
}

describe("error-fallback: the provider's message once", () => {
  it("takes OpenAI's message without the status prefix or LangChain's troubleshooting URL", () => {
    const error = openAiError(429, { message: "Rate limit reached for gpt-x in organization org-1", type: "requests", code: "rate_limit_exceeded" }, { "retry-after": "2" });
    // What the SDK and LangChain put in the message: the status, then the text, then a URL.
    expect(error.message).toMatch(/^429 Rate limit reached[\s\S]*Troubleshooting URL: https:\/\/\S+MODEL_RATE_LIMIT/);
    const failure = classifyProviderError(error, 0);
    expect(failure).toEqual({ type: "rate_limited", retryable: true, status: 429, retryAfterMs: 2000, message: "Rate limit reached for gpt-x in organization org-1" });
  });

  it("takes Anthropic's nested error.message instead of the JSON body", () => {
    const error = anthropicError(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(error.message).toBe('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(classifyProviderError(error, 0)).toEqual({ type: "server_error", retryable: true, status: 529, message: "Overloaded" });
  });

  it("classifies Anthropic's auth and bad-request errors as not retryable", () => {
    expect(classifyProviderError(anthropicError(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }), 0)).toEqual({
      type: "auth",
      retryable: false,
      status: 401,
      message: "invalid x-api-key",
    });
    expect(classifyProviderError(openAiError(400, { message: "max_tokens is too large", type: "invalid_request_error" }), 0)).toMatchObject({ type: "provider_error", retryable: false, message: "max_tokens is too large" });
  });

  it("says 'HTTP <status> (no body)' for an empty error body, and cleans plain texts", () => {
    expect(classifyProviderError(new ModelCallError(OpenAIError.generate(502, undefined, undefined, new Headers())), 0).message).toBe("HTTP 502 (no body)");
    expect(cleanProviderMessage("500 boom\n\nTroubleshooting URL: https://docs.langchain.com/x/\n", 500)).toBe("boom");
    expect(cleanProviderMessage("500 boom", undefined)).toBe("500 boom");
    expect(cleanProviderMessage("5000 tokens", 500)).toBe("5000 tokens");
  });
});
