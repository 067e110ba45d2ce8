import { describe, expect, it } from "vitest";
import type { ScenarioV1, ScriptedTurn } from "../../contracts/scenario/v1.js";
import finishReason from "../../plugins/finish-reason/index.js";
import loopDetection from "../../plugins/loop-detection/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incident: a provider's safety system cut a response in the middle of a tool call, and the
 * runtime ran the truncated call anyway; a length-truncated `write_file` wrote half a file.
 */
function scenario(name: string, turns: ScriptedTurn[]): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name: `finish-reason: ${name}`,
    stack: { name: "test", plugins: ["workspace"] },
    input: "Write the report to report.md",
    agents: { lead: { turns } },
  };
}

const writeCall = { name: "write_file", args: { path: "report.md", content: "# Report\nhalf a sent" } };
const guardEvents = (report: RunReport) =>
  report.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === "finish-reason").map((e) => e.data as { action: string; reason: string });

describe("finish-reason: safety stops end the run at once", () => {
  it.each([
    ["anthropic", "refusal"],
    ["openai", "content_filter"],
    ["gemini", "SAFETY"],
    ["gemini", "PROHIBITED_CONTENT"],
  ] as const)("%s %s with a tool call: failed, safety_capped, no further call, the tool never ran", async (provider, finishReasonValue) => {
    const report = await runScenario(
      scenario(`${provider} ${finishReasonValue}`, [{ provider, finishReason: finishReasonValue, toolCalls: [writeCall] }, { content: "must never be asked for" }]),
      { plugins: [finishReason] },
    );
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.primaryStopReason).toBe("safety_capped");
    expect(report.outcome.stopReasons).toEqual([expect.objectContaining({ reason: "safety_capped", by: "finish-reason", turn: 1 })]);
    expect(report.outcome.stopReasons[0]!.detail).toContain(`${provider} `);
    expect(report.outcome.stopReasons[0]!.detail).toContain(`=${finishReasonValue}`);
    expect(report.outcome.error?.type).toBe("safety_capped");
    expect(report.modelRequests).toHaveLength(1);
    expect(report.messages.filter((m) => m.role === "tool")).toEqual([]);
    expect(report.messages.at(-1)!.toolCalls).toBeUndefined();
    expect(report.workspace.files).toEqual({});
    expect(guardEvents(report)).toEqual([{ plugin: "finish-reason", agent: "lead", action: "stop", reason: "safety_capped", detail: expect.any(String) }]);
  });

  it("openai content_filter with blank text and no tool call: failed, safety_capped", async () => {
    const report = await runScenario(scenario("blank filtered text", [{ finishReason: "content_filter", content: "" }]), { plugins: [finishReason] });
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.stopReasons.map((r) => r.reason)).toEqual(["safety_capped"]);
    expect(report.modelRequests).toHaveLength(1);
  });

  it("a refusal with text and no tool call keeps the text, but records safety_capped: partial, never a clean success", async () => {
    const report = await runScenario(scenario("refusal with text", [{ provider: "anthropic", finishReason: "refusal", content: "I can't help with that." }, { content: "must never be asked for" }]), {
      plugins: [finishReason],
    });
    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.text).toBe("I can't help with that.");
    expect(report.outcome.primaryStopReason).toBe("safety_capped");
    expect(report.outcome.stopReasons).toEqual([
      {
        reason: "safety_capped",
        by: "finish-reason",
        turn: 1,
        detail: "anthropic stop_reason=refusal on a response with text and no tool calls (the text is kept as the answer)",
      },
    ]);
    expect(report.modelRequests).toHaveLength(1);
    expect(guardEvents(report)).toEqual([{ plugin: "finish-reason", agent: "lead", action: "stop", reason: "safety_capped", detail: expect.any(String) }]);
  });
});

describe("finish-reason: length stops inside tool calls force a final answer", () => {
  it.each([
    ["openai", "length"],
    ["anthropic", "max_tokens"],
    ["gemini", "MAX_TOKENS"],
  ] as const)("%s %s with tool calls: partial, model_length_capped, the truncated call never ran", async (provider, finishReasonValue) => {
    const report = await runScenario(
      scenario(`${provider} ${finishReasonValue}`, [
        { provider, finishReason: finishReasonValue, toolCalls: [writeCall] },
        { provider, content: "I could not finish writing the report: my output was cut off." },
      ]),
      { plugins: [finishReason] },
    );
    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.text).toBe("I could not finish writing the report: my output was cut off.");
    expect(report.outcome.stopReasons).toEqual([expect.objectContaining({ reason: "model_length_capped", by: "finish-reason", turn: 1 })]);
    expect(report.modelRequests).toHaveLength(2);
    expect(report.modelRequests[0]!.tools).toContain("write_file");
    expect(report.modelRequests[1]!.tools).toEqual([]);
    expect(report.messages.filter((m) => m.role === "tool")).toEqual([]);
    expect(report.workspace.files).toEqual({});
  });

  it("a length finish without tool calls is kept as the answer", async () => {
    const report = await runScenario(scenario("long text", [{ finishReason: "length", content: "A long answer that was cut" }]), { plugins: [finishReason] });
    expect(report.outcome.status).toBe("succeeded");
    expect(report.modelRequests).toHaveLength(1);
  });

  it("the `length` option switched off lets the truncated call run", async () => {
    const s = { ...scenario("length off", [{ finishReason: "length", toolCalls: [writeCall] }, { content: "Done." }]), config: { "finish-reason": { length: false } } };
    const report = await runScenario(s, { plugins: [finishReason] });
    expect(report.outcome.status).toBe("succeeded");
    expect(Object.keys(report.workspace.files)).toEqual(["report.md"]);
  });
});

describe("finish-reason with loop-detection: safety before loop accounting", () => {
  const read = { name: "read_file", args: { path: "notes.md" } };
  const withNotes = (s: ScenarioV1): ScenarioV1 => ({ ...s, workspace: { files: { "notes.md": "n\n" } } });
  const toolCallsRun = (report: RunReport) => report.messages.filter((m) => m.role === "tool").length;

  it("is ordered after loop-detection, so its afterModel sees the raw response first", async () => {
    const report = await runScenario(withNotes(scenario("order", [{ content: "ok" }])), { plugins: [finishReason, loopDetection] });
    expect(report.composition.lead).toEqual(["workspace", "loop-detection", "finish-reason"]);
  });

  it("a refusal on the 5th identical call: safety_capped only, loop-detection does not count the stripped calls", async () => {
    const s = scenario("refusal on the 5th identical call", [{ toolCalls: [read] }, { toolCalls: [read] }, { toolCalls: [read] }, { toolCalls: [read] }, { provider: "anthropic", finishReason: "refusal", toolCalls: [read] }]);
    const report = await runScenario(withNotes(s), { plugins: [finishReason, loopDetection] });
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.by])).toEqual([["safety_capped", "finish-reason"]]);
    expect(report.outcome.status).toBe("failed");
    expect(report.modelRequests).toHaveLength(5);
    // The four reads ran; the refused fifth never did.
    expect(toolCallsRun(report)).toBe(4);
    expect(report.events.filter((e) => e.event === "guard" && (e.data as { action: string }).action === "stop").map((e) => (e.data as { plugin: string }).plugin)).toEqual(["finish-reason"]);
  });

  it("repeated content_filter responses with identical tool calls (hardLimit 2): safety_capped, never loop_capped, the calls never ran", async () => {
    const filtered = { finishReason: "content_filter", toolCalls: [read] };
    const s = { ...scenario("content_filter twice", [{ toolCalls: [read] }, filtered, filtered]), config: { "loop-detection": { hardLimit: 2, warnAt: 2 } } };
    const report = await runScenario(withNotes(s), { plugins: [finishReason, loopDetection] });
    expect(report.outcome.stopReasons.map((r) => r.reason)).toContain("safety_capped");
    expect(report.outcome.stopReasons.map((r) => r.reason)).not.toContain("loop_capped");
    expect(report.outcome.stopReasons).toHaveLength(1);
    // One model call after the first read: the filtered response ends the run, its call never runs.
    expect(report.modelRequests).toHaveLength(2);
    expect(toolCallsRun(report)).toBe(1);
    expect(report.events.filter((e) => e.event === "guard").map((e) => (e.data as { plugin: string }).plugin)).toEqual(["finish-reason"]);
  });
});
