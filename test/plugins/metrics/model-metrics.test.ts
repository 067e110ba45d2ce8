import { describe, expect, it } from "vitest";
import { modelSummarizer } from "../../../kernel/loop/summarize.js";
import { createErrorFallbackPlugin } from "../../../plugins/error-fallback/index.js";
import { createKeelMetrics, METRIC } from "../../../plugins/metrics/index.js";
import summarization from "../../../plugins/summarization/index.js";
import { ScriptedChatModel } from "../../../tools/testing/scripted-model.js";
import { runWith, tool, toolsPlugin } from "../../loop/harness.js";
import { sample } from "./prometheus-text.js";

const echo = toolsPlugin(tool("echo", (args) => `echo ${JSON.stringify(args)}`));
const call = (n: number) => ({ toolCalls: [{ name: "echo", args: { n } }], usage: { input_tokens: 100, output_tokens: 10 } });

describe("model and tool metrics from the loop", () => {
  it("every attempt is one latency observation (by purpose and outcome, timed on the injected clock); tokens count answered calls", async () => {
    // Each reading of the clock advances 250 ms: every call lasts exactly 0.25 s.
    let t = 0;
    const metrics = createKeelMetrics({ now: () => (t += 250) });
    const summarizer = new ScriptedChatModel({ script: { turns: [{ content: "SUMMARY", usage: { input_tokens: 300, output_tokens: 20 } }], then: "repeat-last" }, agentPath: "summarizer", agentType: "summarizer", faults: [{ agent: "summarizer", turn: 1, error: { status: 500, message: "upstream down" } }] });
    const run = await runWith(
      [echo, summarization, createErrorFallbackPlugin({ sleep: async () => undefined, random: () => 0.5 })],
      { turns: [call(1), call(2), call(3), { content: "Done.", usage: { input_tokens: 100, output_tokens: 10 } }] },
      { compose: { config: [{ summarization: { triggerMessages: 6, keepMessages: 2 } }] }, runtime: { summarize: modelSummarizer(summarizer), observer: metrics.observer } },
    );
    expect(run.outcome.status).toBe("succeeded");
    const text = await metrics.render();
    const labels = (purpose: string, outcome: string) => ({ model: "keel-scripted", provider: "keel-scripted", purpose, outcome });
    expect(sample(text, `${METRIC.modelDuration}_count`, labels("turn", "ok"))).toBe(4);
    expect(sample(text, `${METRIC.modelDuration}_sum`, labels("turn", "ok"))).toBe(1);
    expect(sample(text, `${METRIC.modelDuration}_count`, labels("summarize", "error"))).toBe(1);
    expect(sample(text, `${METRIC.modelDuration}_count`, labels("summarize", "ok"))).toBe(1);
    expect(sample(text, `${METRIC.modelDuration}_bucket`, { ...labels("turn", "ok"), le: "0.1" })).toBe(0);
    expect(sample(text, `${METRIC.modelDuration}_bucket`, { ...labels("turn", "ok"), le: "0.25" })).toBe(4);
    expect(sample(text, METRIC.modelTokens, { direction: "input", model: "keel-scripted" })).toBe(4 * 100 + 300);
    expect(sample(text, METRIC.modelTokens, { direction: "output", model: "keel-scripted" })).toBe(4 * 10 + 20);
    expect(sample(text, METRIC.toolCalls, { tool: "echo", status: "success" })).toBe(3);
  });
});
