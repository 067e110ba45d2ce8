import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { messageText } from "../../../kernel/loop/message-meta.js";
import { modelSummarizer, SUMMARY_INSTRUCTIONS } from "../../../kernel/loop/summarize.js";
import { turnsByAgent } from "../../../kernel/report/run-report.js";
import { ScriptedChatModel, type ScriptedFault } from "../../../tools/testing/scripted-model.js";
import { createErrorFallbackPlugin } from "../../../plugins/error-fallback/index.js";
import loopDetection from "../../../plugins/loop-detection/index.js";
import summarization, { SUMMARY_HEADING, type SummaryState } from "../../../plugins/summarization/index.js";
import tokenBudget, { type BudgetState } from "../../../plugins/token-budget/index.js";
import { runWith, tool, toolsPlugin } from "../../loop/harness.js";

/**
 * A summary model (what `keel serve` uses with a real model): the kernel calls it through
 * the stack's retry layer (error-fallback), journals every attempt, and counts its usage in
 * the agent's usage and in token-budget's account. It is not a turn.
 */

const echo = toolsPlugin(tool("echo", (args) => `echo ${JSON.stringify(args)}`));
const call = (n: number) => ({ toolCalls: [{ name: "echo", args: { n } }], usage: { input_tokens: 100, output_tokens: 10 } });
const SUMMARY_USAGE = { input_tokens: 300, output_tokens: 20 };

/** A scripted summary model that answers `SUMMARY <n>` with usage; `faults` make its calls fail. */
function summaryModel(faults: ScriptedFault[] = []) {
  const model = new ScriptedChatModel({ script: { turns: [1, 2, 3, 4].map((n) => ({ content: `SUMMARY ${n}`, usage: SUMMARY_USAGE })), then: "repeat-last" }, agentPath: "summarizer", agentType: "summarizer", faults });
  const seen: BaseMessage[][] = [];
  const invoke = model.invoke.bind(model);
  model.invoke = (async (input: BaseMessage[], options?: unknown) => {
    seen.push(input);
    return invoke(input, options as never);
  }) as typeof model.invoke;
  return { model, seen };
}

const retries = () => createErrorFallbackPlugin({ sleep: async () => undefined, random: () => 0.5 });

describe("a model-based summarizer", () => {
  it("is retried by error-fallback, journaled, counted in usage and in the token budget, and is not a turn", async () => {
    const summarizer = summaryModel([{ agent: "summarizer", turn: 1, error: { status: 500, message: "upstream down" } }]);
    const run = await runWith([echo, summarization, retries(), tokenBudget], { turns: [call(1), call(2), call(3), { content: "Done.", usage: { input_tokens: 100, output_tokens: 10 } }] }, {
      input: "Echo three times, then say done.",
      compose: { config: [{ summarization: { triggerMessages: 6, keepMessages: 2 } }] },
      runtime: { summarize: modelSummarizer(summarizer.model) },
    });

    expect(run.outcome.status).toBe("succeeded");
    // One compaction (before turn 4): the first attempt failed with 500, the retry answered.
    const summaryCalls = run.journal.filter((e) => e.kind === "model_call" && e.name === "summarize");
    expect(summaryCalls.map((e) => [e.turn, e.status])).toEqual([[4, "error"], [4, "ok"]]);
    expect(summaryCalls[1]!.usage).toEqual({ inputTokens: 300, outputTokens: 20, totalTokens: 320 });
    const retriesSeen = run.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === "error-fallback");
    expect(retriesSeen.map((e) => (e.data as { action: string }).action)).toEqual(["retry"]);

    // The summary request: the instructions, then the transcript (holding the user's request).
    expect(summarizer.seen).toHaveLength(2);
    expect(messageText(summarizer.seen[1]![0]!)).toBe(SUMMARY_INSTRUCTIONS);
    expect(messageText(summarizer.seen[1]![1]!)).toContain("human: Echo three times, then say done.");
    expect((run.values.summary as SummaryState).text).toBe("SUMMARY 1");
    expect(messageText(run.messages.find((m) => messageText(m).startsWith(SUMMARY_HEADING))!)).toBe(`${SUMMARY_HEADING}\nSUMMARY 1`);

    // Usage: four turns of 110 tokens plus the summary call's 320.
    expect(run.usage).toEqual({ inputTokens: 700, outputTokens: 60, totalTokens: 760 });
    expect(run.outcome.usage).toMatchObject({ totalTokens: 760 });
    expect((run.values.budget as BudgetState).totalTokens).toBe(760);
    // Not a turn: four model calls, four turns.
    expect(run.turns).toBe(4);
    expect(turnsByAgent(run.journal)).toEqual({ lead: 4, total: 4 });
    expect(run.requests).toHaveLength(4);
  });

  it("its tokens can exhaust the token budget (the stop comes from token-budget)", async () => {
    const summarizer = summaryModel();
    // Turns alone (4 × 110 = 440) stay under 85% of 800; with the summary call (320) they do not.
    const run = await runWith([echo, summarization, retries(), tokenBudget], { turns: [call(1), call(2), call(3), call(4), call(5), { content: "Out of budget." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 6, keepMessages: 2 }, "token-budget": { limit: 800 } }] },
      runtime: { summarize: modelSummarizer(summarizer.model) },
    });
    const stops = run.outcome.stopReasons.map((r) => [r.reason, r.by]);
    expect(stops).toEqual([["token_capped", "token-budget"]]);
    expect(run.journal.some((e) => e.name === "summarize" && e.status === "ok")).toBe(true);
  });

  it("fails open when the retries are exhausted: summarize_failed, history kept, the run goes on", async () => {
    const summarizer = summaryModel([{ agent: "summarizer", turn: 1, times: "always", error: { status: 503, message: "overloaded" } }]);
    const run = await runWith([echo, summarization, retries()], { turns: [call(1), call(2), call(3), { content: "Done." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 6, keepMessages: 2 } }] },
      runtime: { summarize: modelSummarizer(summarizer.model) },
    });
    expect(run.outcome.status).toBe("succeeded");
    expect(run.values.summary).toBeUndefined();
    const failed = run.events.filter((e) => e.event === "custom" && (e.data as { kind?: string }).kind === "summarize_failed");
    expect(failed.length).toBeGreaterThan(0);
    expect((failed[0]!.data as { message: string }).message).toContain("overloaded");
    // error-fallback's attempts (3 by default), each journaled.
    expect(run.journal.filter((e) => e.name === "summarize" && e.turn === 4).map((e) => e.status)).toEqual(["error", "error", "error"]);
  });

  it("does not run the turn's other wrap hooks: a pending loop warning still reaches the next turn", async () => {
    const summarizer = summaryModel();
    const same = { toolCalls: [{ name: "echo", args: { n: 1 } }] };
    const run = await runWith([echo, summarization, retries(), loopDetection], { turns: [same, same, same, { content: "Stopped repeating." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 6, keepMessages: 2 } }] },
      runtime: { summarize: modelSummarizer(summarizer.model) },
    });
    // The 3rd identical call warns; turn 4 is compacted first (summary call), and still carries the warning.
    expect(run.journal.some((e) => e.name === "summarize" && e.turn === 4)).toBe(true);
    const last = run.requests[3]!.messages.at(-1)!;
    expect(messageText(last).startsWith("[LOOP WARNING]")).toBe(true);
    for (const request of summarizer.seen) expect(request.some((m) => messageText(m).includes("[LOOP WARNING]"))).toBe(false);
  });
});
