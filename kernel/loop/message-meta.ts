import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/**
 * Keel's metadata on a message lives under `additional_kwargs.keel`. Provider adapters
 * ignore unknown additional kwargs, and checkpoints persist them.
 */
export interface KeelMessageMeta {
  /** An injected data message (receipt ledger, durable context, warnings): shown as `hidden` in reports. */
  hidden?: boolean;
  /** Text a guard or the kernel appended to an assistant message; not usable output. */
  addedText?: string;
  /** The error fallback's assistant message: the run is `failed` when it is the last one. */
  errorFallback?: { type: string; message: string; retryable: boolean };
  /** Normalized finish reason of an assistant message. */
  finish?: NormalizedFinish;
  /** Tool calls the kernel stripped from this message after a stop request. */
  strippedToolCalls?: number;
  /** The forced final call that produced this message. */
  forced?: boolean;
  /** A tool result run (or refused) under a human decision: what was decided, by whom, when (copied onto its receipt). */
  approval?: { decision: "approve" | "edit" | "reject"; by?: string; at: string };
  /** Any plugin-specific fields (receipt ids shown, read marks, ...). */
  [key: string]: unknown;
}

export type FinishKind = "stop" | "tool_calls" | "length" | "safety" | "other";

export interface NormalizedFinish {
  kind: FinishKind;
  /** The provider's own value (`finish_reason`, `stop_reason`, `finishReason`). */
  raw?: string;
  provider?: "openai" | "anthropic" | "gemini";
}

export function keelMeta(message: BaseMessage): KeelMessageMeta {
  return ((message.additional_kwargs as Record<string, unknown> | undefined)?.keel as KeelMessageMeta | undefined) ?? {};
}

/** Set Keel metadata in place (messages are owned by the node that builds them). */
export function setKeelMeta(message: BaseMessage, patch: KeelMessageMeta): BaseMessage {
  message.additional_kwargs = { ...(message.additional_kwargs ?? {}), keel: { ...keelMeta(message), ...patch } };
  return message;
}

export function isHidden(message: BaseMessage): boolean {
  return keelMeta(message).hidden === true;
}

export function messageText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : (part as { type?: string; text?: string }).type === "text" ? ((part as { text?: string }).text ?? "") : ""))
      .join("");
  }
  return "";
}

/** The model's own text of an assistant message, without text guards or the kernel appended. */
export function usableText(message: BaseMessage): string {
  const meta = keelMeta(message);
  if (meta.errorFallback) return "";
  let text = messageText(message);
  if (meta.addedText && text.endsWith(meta.addedText)) text = text.slice(0, text.length - meta.addedText.length);
  return text.trim();
}

export function lastAssistant(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (AIMessage.isInstance(m)) return m;
  }
  return undefined;
}

/**
 * Give a message an id that survives a checkpoint round trip: @langchain/core serializes
 * `lc_kwargs`, which does not see a later assignment to `id`.
 */
export function ensureMessageId(message: BaseMessage, id: string): BaseMessage {
  if (message.id) return message;
  message.id = id;
  (message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.id = id;
  return message;
}
