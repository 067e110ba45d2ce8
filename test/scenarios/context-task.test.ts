import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { RunScope, steppingClock, type ModelRequestRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { isHidden, messageText } from "../../kernel/loop/message-meta.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import durableContext from "../../plugins/durable-context/index.js";
import messageCoalescing from "../../plugins/message-coalescing/index.js";
import summarization, { type SummaryState } from "../../plugins/summarization/index.js";
import { tool, toolsPlugin } from "../loop/harness.js";

/**
 * Incident: after repeated compactions a long-running agent no longer knew what it had
 * been asked — the summary of a summary had dropped the task. Here one thread gets two
 * runs (a long first request, then a follow-up), each compacted again and again; every
 * model request after a compaction still carries both requests verbatim (the first
 * clipped to its first 2,000 characters).
 */

const FIRST = `Audit the harbour tide tables. ${"Check every station and every month carefully. ".repeat(60)}Report the worst station.`;
const LATEST = "Now also compare the worst station with last year's table.";

const calls = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ toolCalls: [{ name: "echo", args: { n: from + i } }] }));

function visibleUserTexts(request: ModelRequestRecord): string[] {
  return request.messages.filter((m) => m.getType() === "human" && !isHidden(m)).map(messageText);
}

describe("context incident: repeated compactions keep the task", () => {
  it("every request after a compaction holds the first and the latest user request, across runs and k compactions", async () => {
    expect(FIRST.length).toBeGreaterThan(2000);
    const composition = compose({ name: "t", plugins: [toolsPlugin(tool("echo", (args) => `echo ${JSON.stringify(args)}`)), summarization, durableContext, messageCoalescing] }, {
      config: [{ summarization: { triggerMessages: 6, keepMessages: 2 } }],
    });
    const checkpointer = new MemorySaver();
    const requests: ModelRequestRecord[][] = [[], []];
    const runOnce = async (index: number, input: string, turns: unknown[]) => {
      const model = new ScriptedChatModel({ script: { turns: turns as never }, faults: [] });
      const runtime = createAgentRuntime(composition, { model, checkpointer, systemPrompt: "You are the harbour agent." });
      const scope = new RunScope(`run-${index + 1}`, "harbour", steppingClock(0), { modelRequest: (r) => requests[index]!.push(r) });
      return runtime.run({ threadId: "harbour", runId: `run-${index + 1}`, input, scope });
    };

    const first = await runOnce(0, FIRST, [...calls(1, 8), { content: "Station 7 is the worst." }]);
    expect(first.outcome.status).toBe("succeeded");
    const second = await runOnce(1, LATEST, [...calls(100, 8), { content: "Station 7 got worse than last year." }]);
    expect(second.outcome.status).toBe("succeeded");

    const summary = second.values.summary as SummaryState;
    // k compactions, each a summary of the previous summary.
    expect(summary.compactions).toBeGreaterThanOrEqual(6);

    const clippedFirst = FIRST.slice(0, 2000);
    for (const request of requests[0]!.slice(1)) {
      expect([request.turn, visibleUserTexts(request).some((t) => t.startsWith(clippedFirst))]).toEqual([request.turn, true]);
    }
    for (const request of requests[1]!) {
      const texts = visibleUserTexts(request);
      expect([request.turn, texts.some((t) => t.startsWith(clippedFirst)), texts.includes(LATEST)]).toEqual([request.turn, true, true]);
      // system first, then user content: still provider-valid.
      expect(request.messages[0]!.getType()).toBe("system");
      expect(request.messages[1]!.getType()).toBe("human");
    }
    // The first request is clipped once, with a note — never lost, never re-clipped.
    const pinned = second.messages.filter((m) => m.getType() === "human" && !isHidden(m)).map(messageText);
    expect(pinned).toEqual([`${clippedFirst}\n[… ${FIRST.length - 2000} more characters of this request are covered by the summary]`, LATEST]);
  });
});
