import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ScriptedChatModel, type ScriptedAgent } from "../testing/scripted-model.js";

/**
 * The loop benchmark's baseline and script. This file never changes in the same commit as
 * the kernel code it is compared with.
 */

/** `turns` tool-call turns (a different argument each turn), then a final answer; usage given so no variant pays for estimation. */
export function benchScript(turns: number): ScriptedAgent {
  const usage = { input_tokens: 10, output_tokens: 2 };
  return {
    turns: [...Array.from({ length: turns }, (_, i) => ({ toolCalls: [{ name: "noop", args: { n: i } }], usage })), { content: "done", usage }],
  };
}

export const NOOP_TOOL_SCHEMA = { type: "object", properties: { n: { type: "number" } } } as const;

/** A hand-built LangGraph model↔tools loop, no checkpointer: what any agent loop on LangGraph costs at least. */
export async function bareLoop(turns: number): Promise<void> {
  const model = new ScriptedChatModel({ script: benchScript(turns) });
  const bound = model.bindTools([{ type: "function", function: { name: "noop", description: "does nothing", parameters: NOOP_TOOL_SCHEMA } }] as never);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s: { messages: BaseMessage[] }) => ({ messages: [await bound.invoke(s.messages)] }))
    .addNode("tools", async (s: { messages: BaseMessage[] }) => {
      const last = s.messages[s.messages.length - 1] as AIMessage;
      const results = (last.tool_calls ?? []).map((c) => new ToolMessage({ tool_call_id: c.id!, name: c.name, content: "ok" }));
      return { messages: results };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s: { messages: BaseMessage[] }) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent")
    .compile();
  const out = await graph.invoke({ messages: [{ role: "user", content: "go" }] }, { recursionLimit: 2 * turns + 10 });
  if (out.messages.length !== 2 * turns + 2) throw new Error(`bare loop ended after ${out.messages.length} messages`);
}
