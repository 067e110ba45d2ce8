import { RemoveMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import type { ReportMessage } from "../../kernel/report/report-message.js";
import durableContext, { AUTHORITY_CONTRACT, DATA_OPEN, SUMMARY_POINTER, SUMMARY_TITLE } from "../../plugins/durable-context/index.js";
import messageCoalescing from "../../plugins/message-coalescing/index.js";
import summarization, { SUMMARY_HEADING } from "../../plugins/summarization/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/**
 * Incident: after compaction a subagent's history began with an assistant message (or a
 * tool result whose call had been summarized away) and the provider answered HTTP 400.
 * Here a subagent-like agent with a system prompt makes three parallel read_file calls
 * every turn and is compacted to a 3-message tail again and again.
 */

/** Gives the agent a persisted system prompt, as a child runtime has (scenarios have none). */
const childPrompt: Plugin = definePlugin({
  manifest: {
    name: "child-prompt",
    version: "0.1.0",
    kind: "middleware",
    kernel: ">=0.1.0 <1",
    description: "test: a persisted system prompt first in the thread",
    hooks: { beforeAgent: { observes: ["messages"], mutates: ["messages"] } },
    config: { type: "object", additionalProperties: false },
  },
  hooks: {
    beforeAgent(state) {
      const messages = (state.messages as BaseMessage[] | undefined) ?? [];
      if (messages[0] && SystemMessage.isInstance(messages[0])) return;
      const system = new SystemMessage({ content: "You are a research subagent. Read the files you are given.", id: "child:system" });
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), system, ...messages] };
    },
  },
});

const threeReads = { toolCalls: ["a.md", "b.md", "c.md"].map((path) => ({ name: "read_file", args: { path } })) };

const scenario: ScenarioV1 = {
  contract: "scenario",
  version: 1,
  name: "context: a subagent with three parallel tool calls compacted to a short tail",
  stack: { name: "t", plugins: ["workspace"] },
  input: "Read a.md, b.md and c.md, then say what they contain.",
  config: { summarization: { triggerMessages: 8, keepMessages: 3 } },
  workspace: { files: { "a.md": "alpha\n", "b.md": "beta\n", "c.md": "gamma\n" } },
  agents: { lead: { turns: [threeReads, threeReads, threeReads, threeReads, threeReads, threeReads, { content: "They hold alpha, beta and gamma." }] } },
};

/** The provider rules the incident broke, on report messages; returns the first violation or null. */
function violation(messages: readonly ReportMessage[]): string | null {
  if (messages[0]?.role !== "system") return "does not start with a system message";
  if (messages.filter((m) => m.role === "system").length !== 1) return "more than one system message";
  if (messages[1] && messages[1].role !== "user") return `starts with ${messages[1].role} after the system message`;
  for (let i = 1; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") return `tool result ${m.toolCallId} without its call right before it`;
    const calls = m.toolCalls ?? [];
    for (const [n, call] of calls.entries()) {
      const result = messages[i + 1 + n];
      if (result?.role !== "tool" || result.toolCallId !== call.id) return `call ${call.id} is not answered right after it`;
    }
    i += calls.length;
  }
  return null;
}

const compactions = (events: Array<{ event: string; data: unknown }>) => events.filter((e) => e.event === "custom" && (e.data as { plugin?: string }).plugin === "summarization");

describe("context incident: parallel tool calls compacted to a short tail", () => {
  it("with summarization, durable-context and message-coalescing every request is provider-valid", async () => {
    const report = await runScenario(scenario, { plugins: [childPrompt, summarization, durableContext, messageCoalescing] });

    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.text).toBe("They hold alpha, beta and gamma.");
    expect(report.modelRequests).toHaveLength(7);
    for (const request of report.modelRequests) expect([request.turn, violation(request.messages)]).toEqual([request.turn, null]);
    // Nothing had to be repaired: the cut itself kept the history valid.
    expect(report.events.filter((e) => e.event === "custom" && (e.data as { plugin?: string }).plugin === "message-coalescing")).toEqual([]);

    // Compacted before turns 3..7 (10 messages > 8 each time), each time to one AI block of three calls.
    expect(compactions(report.events).map((e) => (e.data as { kept: number }).kept)).toEqual([4, 4, 4, 4, 4]);
    const late = report.modelRequests[6]!.messages;
    expect(late.map((m) => `${m.role}${m.hidden ? "(hidden)" : ""}`)).toEqual([
      "system",
      "user(hidden)", // durable data: the summary
      "user", // the task: the user's request, pinned verbatim by every compaction
      "user(hidden)", // summarization's summary message, shortened to a pointer
      "assistant",
      "tool",
      "tool",
      "tool",
    ]);
    expect(late[0]!.content).toBe(`You are a research subagent. Read the files you are given.\n\n${AUTHORITY_CONTRACT}`);
    expect(late[1]!.content.startsWith(`${DATA_OPEN}\n${SUMMARY_TITLE}\n`)).toBe(true);
    expect(late[2]!.content).toBe(scenario.input);
    expect(late[3]!.content).toBe(SUMMARY_POINTER);
    expect(late[4]!.toolCalls!.map((c) => c.args.path)).toEqual(["a.md", "b.md", "c.md"]);
    expect(late.slice(5).map((m) => m.content)).toEqual(["alpha\n", "beta\n", "gamma\n"].map((t) => expect.stringContaining(t.trim())));

    // The thread itself: system, the request, one summary message, the last block, the answer; every call answered.
    expect(violation(report.messages)).toBeNull();
    expect(report.messages.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "tool", "tool", "tool", "assistant"]);
    expect(report.messages[1]!.content).toBe(scenario.input);
    expect(report.messages[2]!.content.startsWith(SUMMARY_HEADING)).toBe(true);
    // Requests before the first compaction carry no durable data (nothing to show yet).
    expect(report.modelRequests[0]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("summarization alone keeps the same guarantees (its summary message holds the summary)", async () => {
    const report = await runScenario(scenario, { plugins: [childPrompt, summarization] });

    expect(report.outcome.status).toBe("succeeded");
    for (const request of report.modelRequests) expect([request.turn, violation(request.messages)]).toEqual([request.turn, null]);
    const late = report.modelRequests[6]!.messages;
    expect(late.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "tool", "tool", "tool"]);
    expect([late[1]!.content, late[1]!.hidden]).toEqual([scenario.input, false]);
    expect(late[2]!.hidden).toBe(true);
    expect(late[2]!.content.startsWith(`${SUMMARY_HEADING}\n`)).toBe(true);
  });
});
