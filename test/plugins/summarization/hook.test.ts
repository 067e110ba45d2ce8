import { type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isHidden, keelMeta, messageText } from "../../../kernel/loop/message-meta.js";
import summarization, { SUMMARY_HEADING, type SummaryState } from "../../../plugins/summarization/index.js";
import { ScriptedChatModel } from "../../../tools/testing/scripted-model.js";
import { runWith, tool, toolsPlugin } from "../../loop/harness.js";

const echo = toolsPlugin(tool("echo", (args) => `echo ${JSON.stringify(args)}`));
const call = (n: number, usage?: { input_tokens: number; output_tokens: number }) => ({ toolCalls: [{ name: "echo", args: { n } }], ...(usage ? { usage } : {}) });
const types = (messages: BaseMessage[]) => messages.map((m) => m.getType());
const compactions = (events: Array<{ event: string; data: unknown }>) =>
  events.filter((e) => e.event === "custom" && (e.data as { plugin?: string }).plugin === "summarization").map((e) => e.data as Record<string, unknown>);

describe("summarization in a real runtime", () => {
  it("compacts on the message trigger: system kept, the task request pinned, one hidden summary message, the tail, persisted", async () => {
    const run = await runWith([echo, summarization], { turns: [call(1), call(2), call(3), call(4), { content: "Done." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 7, keepMessages: 2 } }] },
      runtime: { systemPrompt: "You are a test agent." },
    });

    expect(run.outcome.status).toBe("succeeded");
    // Turn 4 saw 8 messages (> 7): two call blocks were summarized, the user's request pinned, the third block kept.
    expect(types(run.requests[3]!.messages)).toEqual(["system", "human", "human", "ai", "tool"]);
    expect(run.requests.slice(0, 3).map((r) => r.messages.length)).toEqual([2, 4, 6]);
    expect(types(run.messages)).toEqual(["system", "human", "human", "ai", "tool", "ai", "tool", "ai"]);

    // The task request is the original message, same id, not hidden.
    const request = run.messages[1]!;
    expect([messageText(request), isHidden(request), request.id]).toEqual(["go", false, "run-1:input:1"]);
    const marker = run.messages[2]!;
    expect(isHidden(marker)).toBe(true);
    expect(keelMeta(marker).summaryMarker).toEqual({ compaction: 1, replaced: 4 });
    // The summarizer saw the request too.
    expect(messageText(marker).startsWith(`${SUMMARY_HEADING}\n- human: go`)).toBe(true);
    expect(messageText(run.messages[4]!)).toBe('echo {"n":3}');

    const summary = run.values.summary as SummaryState;
    expect(summary).toMatchObject({ compactions: 1, summarizedMessages: 4, runId: "run-1", agent: "lead" });
    expect(`${SUMMARY_HEADING}\n${summary.text}`).toBe(messageText(marker));
    expect(compactions(run.events)).toEqual([{ plugin: "summarization", agent: "lead", kind: "compacted", trigger: "messages", messages: 8, estimatedTokens: expect.any(Number), summarized: 4, kept: 2 }]);
  });

  it("compacts on the token trigger once, and ignores usage reported before the cut", async () => {
    const turns = [call(1, { input_tokens: 1000, output_tokens: 10 }), call(2, { input_tokens: 80000, output_tokens: 10 }), call(3, { input_tokens: 1000, output_tokens: 10 }), { content: "Done." }];
    const run = await runWith([echo, summarization], { turns }, { compose: { config: [{ summarization: { keepMessages: 2 } }] } });

    expect(run.outcome.status).toBe("succeeded");
    // 80,010 reported tokens > 0.6 × 128,000 before turn 3; turn 4 still has that message in its tail but is not compacted again.
    expect(compactions(run.events).map((c) => [c.trigger, c.summarized, c.kept])).toEqual([["tokens", 2, 2]]);
    expect(types(run.requests[2]!.messages)).toEqual(["human", "human", "ai", "tool"]);
    expect(types(run.requests[3]!.messages)).toEqual(["human", "human", "ai", "tool", "ai", "tool"]);
    expect(messageText(run.requests[2]!.messages[0]!)).toBe("go");
    expect(isHidden(run.requests[2]!.messages[1]!)).toBe(true);
  });

  it("takes the token trigger's context window from the model's profile unless `contextTokens` names one", async () => {
    const turns = [call(1, { input_tokens: 1000, output_tokens: 10 }), call(2, { input_tokens: 50000, output_tokens: 10 }), call(3, { input_tokens: 1000, output_tokens: 10 }), { content: "Done." }];
    class SmallContextModel extends ScriptedChatModel {
      override get profile() {
        return { maxInputTokens: 64_000 };
      }
    }
    const compactedWith = async (contextTokens?: number) => {
      const model = new SmallContextModel({ script: { turns } });
      const config = { keepMessages: 2, ...(contextTokens === undefined ? {} : { contextTokens }) };
      const run = await runWith([echo, summarization], { turns }, { compose: { config: [{ summarization: config }] }, runtime: { model } });
      return compactions(run.events).map((c) => c.trigger);
    };
    // 50,010 reported tokens: over 0.6 × 64,000 (the model's window), under 0.6 × 128,000 (the default, and what the config names).
    expect(await compactedWith()).toEqual(["tokens"]);
    expect(await compactedWith(128_000)).toEqual([]);
    // A model without a profile: the default window.
    const plain = await runWith([echo, summarization], { turns }, { compose: { config: [{ summarization: { keepMessages: 2 } }] } });
    expect(compactions(plain.events)).toEqual([]);
  });

  it("re-summarizes the earlier summary with the next cut", async () => {
    const run = await runWith([echo, summarization], { turns: [call(1), call(2), call(3), call(4), call(5), call(6), { content: "Done." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 5, keepMessages: 2 } }] },
    });
    const summary = run.values.summary as SummaryState;
    expect(summary.compactions).toBeGreaterThan(1);
    // Only one summary message is ever in the thread, after the pinned request, right before the kept tail.
    expect(run.messages.filter((m) => keelMeta(m).summaryMarker !== undefined)).toHaveLength(1);
    expect([run.messages[0]!.getType(), messageText(run.messages[0]!)]).toEqual(["human", "go"]);
    expect(keelMeta(run.messages[1]!).summaryMarker).toMatchObject({ compaction: summary.compactions });
    // The earlier summary is part of what was summarized (the extractive summary quotes its first line).
    expect(summary.text).toContain(SUMMARY_HEADING);
  });
});

describe("summarization when the summarizer fails", () => {
  it("leaves the history as it is, reports it, and the run goes on", async () => {
    const run = await runWith([echo, summarization], { turns: [call(1), call(2), call(3), { content: "Done." }] }, {
      compose: { config: [{ summarization: { triggerMessages: 4, keepMessages: 2 } }] },
      runtime: {
        summarize: async () => {
          throw new Error("summarizer unavailable");
        },
      },
    });
    expect(run.outcome.status).toBe("succeeded");
    expect(run.messages).toHaveLength(8);
    expect(run.values.summary).toBeUndefined();
    const failures = compactions(run.events).filter((e) => e.kind === "summarize_failed");
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]).toMatchObject({ agent: "lead", message: "summarizer unavailable" });
  });
});
