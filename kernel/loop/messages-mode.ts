/**
 * LangGraph's `messages` stream mode as the LangGraph Agent Server sends it: for each
 * streamed model message, `messages/metadata` (`{ <id>: { metadata } }`) with its first
 * chunk, then `messages/partial` (`[the message so far]`) with every chunk; and
 * `messages/complete` (`[new messages]`) with each superstep's state, for every message id
 * not completed before (the input's included).
 */
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import { plain } from "./stream-payloads.js";

export class PartialMessages {
  private whole: AIMessageChunk | undefined;

  constructor(
    private readonly emit: (event: string, data: unknown) => void,
    private readonly id: string,
    private readonly metadata: Record<string, unknown>,
  ) {}

  push(chunk: AIMessageChunk): void {
    if (!this.whole) this.emit("messages/metadata", { [this.id]: { metadata: this.metadata } });
    this.whole = this.whole ? this.whole.concat(chunk) : chunk;
    const message = plain<Record<string, unknown>>(this.whole);
    message.id = this.id;
    this.emit("messages/partial", [message]);
  }
}

/** `messages/complete` from each `values` chunk: the messages whose ids were not completed yet. */
export class CompletedMessages {
  private readonly seen = new Set<string>();

  constructor(private readonly emit: (event: string, data: unknown) => void) {}

  fromState(state: Record<string, unknown>): void {
    const messages = Array.isArray(state.messages) ? (state.messages as BaseMessage[]) : [];
    const fresh = messages.filter((m) => typeof m?.id === "string" && !this.seen.has(m.id));
    for (const m of fresh) this.seen.add(m.id!);
    if (fresh.length > 0) this.emit("messages/complete", plain(fresh));
  }
}
