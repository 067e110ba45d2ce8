import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import finishReason from "../../../plugins/finish-reason/index.js";
import loopDetection from "../../../plugins/loop-detection/index.js";
import tokenBudget from "../../../plugins/token-budget/index.js";
import workspace from "../../../plugins/workspace/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

const tester = new PluginTester({ stack: { name: "t", plugins: ["workspace"] } });
const write = { name: "write_file", args: { path: "out.md", content: "half" } };

describe("finish-reason through PluginTester", () => {
  it("passes the manifest audit, as do the other guards", () => {
    expect(tester.audit(finishReason)).toEqual([]);
    expect(tester.audit(loopDetection)).toEqual([]);
    expect(tester.audit(tokenBudget)).toEqual([]);
  });

  it("acts on the raw finish reason per its options", async () => {
    await tester.run(finishReason, [
      {
        name: "gemini SPII on a tool call ends the run",
        scenario: { input: "go", agents: { lead: { turns: [{ provider: "gemini", finishReason: "SPII", content: "Here:", toolCalls: [write] }] } } },
        expect: { status: "partial", stopReasons: ["safety_capped"], text: "Here:" },
        assert: (report) => {
          expect(report.modelRequests).toHaveLength(1);
          expect(report.workspace.files).toEqual({});
          // The kernel's explanation is appended but is not usable output.
          expect(report.messages.at(-1)!.content).toContain("[Keel stopped this run: safety_capped (by finish-reason: gemini finishReason=SPII");
        },
      },
      {
        name: "safety off: the call runs",
        scenario: {
          input: "go",
          config: { "finish-reason": { safety: false } },
          agents: { lead: { turns: [{ provider: "anthropic", finishReason: "refusal", toolCalls: [write] }, { content: "Wrote it." }] } },
        },
        expect: { status: "succeeded", stopReasons: [] },
        assert: (report) => expect(Object.keys(report.workspace.files)).toEqual(["out.md"]),
      },
    ]);
  });
});

describe("the three guards compose in any listing order", () => {
  it.each([
    [[loopDetection, finishReason, tokenBudget]],
    [[tokenBudget, finishReason, loopDetection]],
    [[finishReason, tokenBudget, loopDetection]],
  ])("%#", (plugins) => {
    const composition = compose({ name: "t", plugins: [workspace, ...plugins] });
    const order = [...composition.order];
    expect(order.indexOf("loop-detection")).toBeLessThan(order.indexOf("finish-reason"));
    expect(order.indexOf("loop-detection")).toBeLessThan(order.indexOf("token-budget"));
    // after* hooks run in reverse: finish-reason sees each response before loop-detection.
    const after = composition.hooks.afterModel;
    expect(after.indexOf("finish-reason")).toBeLessThan(after.indexOf("loop-detection"));
  });
});
