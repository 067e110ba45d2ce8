/**
 * A model call retried after some of its tokens were streamed: the retried attempt streams
 * under a new message id, and only that id reaches the state — a client tells the first
 * attempt's chunks were discarded (docs/http.md, "Stream modes").
 */
import { describe, expect, it } from "vitest";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { compose } from "../../kernel/compose/index.js";
import { RunScope, steppingClock, type StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { plugin } from "../loop/harness.js";

/** Streams "Hel" then fails on its first call; answers "Hello" in two chunks after that. */
class FlakyStreamingModel extends BaseChatModel {
  calls = 0;
  _llmType(): string {
    return "flaky";
  }
  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: "Hello", message: new AIMessage("Hello") }] };
  }
  async *_streamResponseChunks(_messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
    this.calls += 1;
    yield new ChatGenerationChunk({ text: "Hel", message: new AIMessageChunk("Hel") });
    if (this.calls === 1) throw Object.assign(new Error("connection reset"), { status: 503 });
    yield new ChatGenerationChunk({ text: "lo", message: new AIMessageChunk({ content: "lo", response_metadata: { finish_reason: "stop" } }) });
  }
}

const retryOnce = plugin({ name: "retry-once", hooks: { wrapModelCall: { mutates: ["model.response"], retries: true } } as never }, { wrapModelCall: async (req, next) => next(req).catch(() => next(req)) });

describe("a retried model call streams under a new message id", () => {
  it("messages-tuple and messages: the first attempt's id never reaches the state", async () => {
    const model = new FlakyStreamingModel({});
    const runtime = createAgentRuntime(compose({ name: "test", plugins: [retryOnce] }), { model });
    const events: StreamEventRecord[] = [];
    const scope = new RunScope("run-1", "thread-1", steppingClock(0), { event: (e) => events.push(e) }, { modes: ["messages", "messages-tuple", "values"], subgraphs: false });
    const result = await runtime.run({ threadId: "thread-1", runId: "run-1", input: "hi", scope, streamTokens: true });
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
    const tuples = events.filter((e) => e.event === "messages").map((e) => e.data as [{ id: string; content: string }, unknown]);
    expect(tuples.map(([chunk]) => [chunk.id, chunk.content])).toEqual([
      ["run-1:lead:1", "Hel"],
      ["run-1:lead:1:attempt-2", "Hel"],
      ["run-1:lead:1:attempt-2", "lo"],
    ]);
    const partial = events.filter((e) => e.event === "messages/partial").map((e) => (e.data as Array<{ id: string; content: string }>)[0]!);
    expect(partial.map((m) => [m.id, m.content])).toEqual([
      ["run-1:lead:1", "Hel"],
      ["run-1:lead:1:attempt-2", "Hel"],
      ["run-1:lead:1:attempt-2", "Hello"],
    ]);
    expect(events.filter((e) => e.event === "messages/metadata").map((e) => Object.keys(e.data as object))).toEqual([["run-1:lead:1"], ["run-1:lead:1:attempt-2"]]);
    const completed = events.filter((e) => e.event === "messages/complete").flatMap((e) => (e.data as Array<{ id: string }>).map((m) => m.id));
    expect(completed).toEqual(["run-1:input:1", "run-1:lead:1:attempt-2"]);
    const lastValues = events.filter((e) => e.event === "values").at(-1)!.data as { messages: Array<{ id: string; content: string }> };
    expect(lastValues.messages.map((m) => [m.id, m.content])).toEqual([
      ["run-1:input:1", "hi"],
      ["run-1:lead:1:attempt-2", "Hello"],
    ]);
  });
});
