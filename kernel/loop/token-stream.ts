import type { AIMessageChunk } from "@langchain/core/messages";
import { messageText } from "./message-meta.js";

/** Tools whose argument deltas are batched: a client re-parsing a growing file body per token does quadratic work. */
export const BATCHED_ARGUMENT_TOOLS: ReadonlySet<string> = new Set(["write_file", "str_replace"]);
export const ARGUMENT_DELTA_BATCH = 32;

interface ToolCallChunk {
  name?: string;
  args?: string;
  id?: string;
  index?: number;
}

/** The `messages` stream event's data: LangGraph's messages-tuple, `[chunk, metadata]`. */
export type MessageTuple = [Record<string, unknown>, Record<string, unknown>];

/**
 * Turns a model's streamed chunks into `messages` events: text and ordinary tool-call
 * deltas go out as they arrive; argument deltas of file-writing calls are held and sent
 * `ARGUMENT_DELTA_BATCH` at a time (and the rest when the call ends).
 */
export class TokenStreamer {
  private readonly names = new Map<number, string>();
  private readonly held = new Map<number, ToolCallChunk[]>();

  constructor(
    private readonly emit: (data: MessageTuple) => void,
    private readonly metadata: Record<string, unknown>,
    private readonly messageId: string,
  ) {}

  push(chunk: AIMessageChunk): void {
    const passing: ToolCallChunk[] = [];
    for (const call of (chunk.tool_call_chunks ?? []) as ToolCallChunk[]) {
      const index = call.index ?? 0;
      if (call.name) this.names.set(index, call.name);
      if (!BATCHED_ARGUMENT_TOOLS.has(this.names.get(index) ?? "")) {
        passing.push(call);
        continue;
      }
      const held = this.held.get(index) ?? [];
      held.push(call);
      this.held.set(index, held);
      if (held.length >= ARGUMENT_DELTA_BATCH) this.release(index);
    }
    const text = messageText(chunk);
    const responseMetadata = (chunk.response_metadata ?? {}) as Record<string, unknown>;
    const usage = chunk.usage_metadata;
    // A chunk with only the finish reason or usage (a provider's last one) goes out too: the client sees them.
    if (text.length > 0 || passing.length > 0 || Object.keys(responseMetadata).length > 0 || usage) this.send(text, passing, { response_metadata: responseMetadata, ...(usage ? { usage_metadata: usage } : {}) });
  }

  /** Send whatever is still held (the model finished). */
  flush(): void {
    for (const index of [...this.held.keys()]) this.release(index);
  }

  private release(index: number): void {
    const held = this.held.get(index);
    this.held.delete(index);
    if (!held || held.length === 0) return;
    const merged: ToolCallChunk = { index, args: held.map((c) => c.args ?? "").join("") };
    const first = held.find((c) => c.name);
    if (first?.name) merged.name = first.name;
    const withId = held.find((c) => c.id);
    if (withId?.id) merged.id = withId.id;
    this.send("", [merged]);
  }

  private send(content: string, toolCallChunks: ToolCallChunk[], extra: Record<string, unknown> = { response_metadata: {} }): void {
    this.emit([{ type: "AIMessageChunk", id: this.messageId, content, tool_call_chunks: toolCallChunks, ...extra }, this.metadata]);
  }
}
