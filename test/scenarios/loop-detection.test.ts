import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import loopDetection from "../../plugins/loop-detection/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";

/**
 * Incident: a lead that re-reads the same file forever burns its whole turn budget. With
 * loop-detection it is warned after the 3rd identical call and stopped at the 5th.
 */
function repeatingReader(content: string): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name: `loop-detection incident (${content ? "with text" : "no text"})`,
    stack: { name: "test", plugins: ["workspace"] },
    input: "Summarize notes.md",
    workspace: { files: { "notes.md": "alpha\nbeta\n" } },
    agents: { lead: { turns: [{ content, toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] }], then: "repeat-last" } },
  };
}

const guardEvents = (report: RunReport) =>
  report.events.filter((e) => e.event === "guard" && (e.data as { plugin: string }).plugin === "loop-detection").map((e) => e.data as { action: string; reason: string; detail?: string });

const hasLoopWarning = (request: RunReport["modelRequests"][number]) => request.messages.some((m) => m.content.includes("[LOOP WARNING]"));

describe("loop-detection incident: the same read_file call forever", () => {
  it("ends failed with loop_capped after 5 identical calls and one forced final call (no text)", async () => {
    const report = await runScenario(repeatingReader(""), { plugins: [loopDetection] });

    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.stopReasons.map((r) => [r.reason, r.by])).toEqual([["loop_capped", "loop-detection"]]);
    expect(report.outcome.stopReasons[0]!.turn).toBe(5);
    expect(report.outcome.stopReasons[0]!.detail).toContain('read_file:{"lines":"1-200","path":"notes.md"}');
    expect(report.outcome.primaryStopReason).toBe("loop_capped");

    // 5 identical calls + 1 forced final call; the 5th call was stripped, so only 4 ran.
    expect(report.modelRequests).toHaveLength(6);
    expect(report.turns.total).toBe(6);
    expect(report.messages.filter((m) => m.role === "tool")).toHaveLength(4);
    const assistants = report.messages.filter((m) => m.role === "assistant");
    expect(assistants.map((m) => m.toolCalls?.length ?? 0)).toEqual([1, 1, 1, 1, 0, 0]);

    // The warning raised by the 3rd identical call rides at the very end of the next request, hidden.
    expect(report.modelRequests.slice(0, 3).some(hasLoopWarning)).toBe(false);
    const warned = report.modelRequests[3]!;
    const last = warned.messages[warned.messages.length - 1]!;
    expect(last.role).toBe("user");
    expect(last.hidden).toBe(true);
    expect(last.content.startsWith("[LOOP WARNING]")).toBe(true);
    expect(warned.messages[warned.messages.length - 2]!.role).toBe("tool");
    // Injected, never persisted, and sent once.
    expect(report.modelRequests[4]!.messages.some((m) => m.content.includes("[LOOP WARNING]"))).toBe(false);
    expect(report.messages.some((m) => m.content.includes("[LOOP WARNING]"))).toBe(false);

    const forced = report.modelRequests[5]!;
    expect(forced.tools).toEqual([]);
    expect(forced.messages[forced.messages.length - 1]!.content).toContain("loop_capped");
    expect(report.modelRequests[4]!.tools).toContain("read_file");

    expect(guardEvents(report).map((e) => [e.action, e.reason])).toEqual([
      ["warn", "loop_capped"],
      ["stop", "loop_capped"],
    ]);
  });

  it("ends partial when the forced final answer has text", async () => {
    const report = await runScenario(repeatingReader("Still reading the notes."), { plugins: [loopDetection] });
    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.text).toBe("Still reading the notes.");
    expect(report.outcome.stopReasons.map((r) => r.reason)).toEqual(["loop_capped"]);
    expect(report.modelRequests).toHaveLength(6);
    expect(report.modelRequests[5]!.tools).toEqual([]);
  });

  it("does not fire when every call reads a different 200-line range", async () => {
    const lines = Array.from({ length: 1200 }, (_, i) => `line ${i + 1}`).join("\n");
    const report = await runScenario(
      {
        contract: "scenario",
        version: 1,
        name: "loop-detection: paging through a long file",
        stack: { name: "test", plugins: ["workspace"] },
        input: "Read big.txt",
        workspace: { files: { "big.txt": lines } },
        agents: {
          lead: {
            turns: [
              ...[1, 201, 401, 601, 801, 1001].map((startLine) => ({ toolCalls: [{ name: "read_file", args: { path: "big.txt", startLine, endLine: startLine + 199 } }] })),
              { content: "Read it all." },
            ],
          },
        },
      },
      { plugins: [loopDetection] },
    );
    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.stopReasons).toEqual([]);
    expect(guardEvents(report)).toEqual([]);
    expect(report.modelRequests.some(hasLoopWarning)).toBe(false);
  });
});
