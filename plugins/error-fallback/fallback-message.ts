import { AIMessage } from "@langchain/core/messages";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";

export interface FallbackInfo {
  /** A stable classification: auth, quota, rate_limited, timeout, server_error, network, provider_error, circuit_open. */
  type: string;
  /** The provider's message (becomes the outcome's `error.message`). */
  message: string;
  retryable: boolean;
}

/**
 * The assistant message that replaces a failed model call: no tool calls, so the run
 * ends; its whole text is `addedText` (never usable output) and `errorFallback` makes the
 * kernel derive `failed` with this error when it is the last assistant message. It is also
 * marked for clients that read messages, not Keel's metadata: `additional_kwargs`
 * `keelErrorFallback: true`, `errorType`, `errorDetail` (the provider's message).
 */
export function errorFallbackMessage(info: FallbackInfo, summary: string, id: string): AIMessage {
  const content = `The model provider failed (${summary}): ${info.message}`;
  const marker = { keelErrorFallback: true, errorType: info.type, errorDetail: info.message };
  const message = new AIMessage({ id, content, tool_calls: [], additional_kwargs: marker, response_metadata: {}, usage_metadata: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } });
  return setKeelMeta(message, { errorFallback: { type: info.type, message: info.message, retryable: info.retryable }, addedText: content }) as AIMessage;
}
