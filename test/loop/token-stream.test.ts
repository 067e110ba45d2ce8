import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { RunScope, steppingClock, type StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { ARGUMENT_DELTA_BATCH, type MessageTuple } from "../../kernel/loop/token-stream.js";
import { tool, toolsPlugin } from "./harness.js";

/** Streams a few text tokens and a write_file call whose arguments arrive in 70 deltas; then answers "done". */
class StreamingModel extends BaseChatModel {
  calls = 0;
  _llmType() {
    return "streaming-test";
  }
  override bindTools() {
    return this as never;
  }
  async _generate(): Promise<ChatResult> {
    throw new Error("stream only");
  }
  override async *_streamResponseChunks(_messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
    this.calls++;
    if (this.calls > 1) {
      yield new ChatGenerationChunk({ text: "done", message: new AIMessageChunk({ content: "done" }) });
      return;
    }
    for (const token of ["Writ", "ing ", "now"]) yield new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
    const args = JSON.stringify({ path: "a.txt", content: "x".repeat(50) });
    const deltas = Array.from({ length: 70 }, (_, i) => args.slice(Math.floor((i * args.length) / 70), Math.floor(((i + 1) * args.length) / 70)));
    for (const [i, delta] of deltas.entries()) {
      const first = i === 0 ? { name: "write_file", id: "call_w" } : {};
      yield new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", tool_call_chunks: [{ ...first, args: delta, index: 0, type: "tool_call_chunk" }] }) });
    }
  }
}

describe("token streaming", () => {
  it("emits text deltas as they arrive and batches file-writing argument deltas 32 at a time", async () => {
    let written = "";
    const writer = toolsPlugin(tool("write_file", (args) => ((written = String(args.content)), "ok")));
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [writer] }), { model: new StreamingModel({}) });
    const events: StreamEventRecord[] = [];
    const scope = new RunScope("r", "t", steppingClock(0), { event: (e) => events.push(e) });
    const result = await runtime.run({ threadId: "t", runId: "r", input: "go", scope, streamTokens: true });

    expect(result.outcome).toMatchObject({ status: "succeeded", text: "done" });
    expect(written).toBe("x".repeat(50)); // the concatenated chunks are the answer the tool ran with
    const tuples = events.filter((e) => e.event === "messages").map((e) => e.data as MessageTuple);
    const texts = tuples.map(([chunk]) => chunk.content).filter((c) => c !== "");
    expect(texts).toEqual(["Writ", "ing ", "now", "done"]);
    const argEvents = tuples.filter(([chunk]) => (chunk.tool_call_chunks as unknown[]).length > 0);
    expect(argEvents).toHaveLength(Math.ceil(70 / ARGUMENT_DELTA_BATCH));
    expect(argEvents.map(([chunk]) => (chunk.tool_call_chunks as Array<{ args: string }>)[0]!.args).join("")).toBe(JSON.stringify({ path: "a.txt", content: "x".repeat(50) }));
    expect(tuples[0]![1]).toEqual({ langgraph_node: "agent", agent: "lead", turn: 1 });
  });

  it("emits no messages events unless asked", async () => {
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [toolsPlugin(tool("write_file", () => "ok"))] }), { model: new StreamingModel({}) });
    const events: StreamEventRecord[] = [];
    const scope = new RunScope("r", "t", steppingClock(0), { event: (e) => events.push(e) });
    const result = await runtime.run({ threadId: "t", runId: "r", input: "go", scope });
    // The model was invoked, not streamed (this test model only streams).
    expect(result.outcome.error?.message).toBe("stream only");
    expect(events.filter((e) => e.event === "messages")).toHaveLength(0);
  });
});
