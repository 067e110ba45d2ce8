import { describe, expect, it } from "vitest";
import { capLabel, displayText, resultBrief } from "../../../plugins/subagents/display.js";
import type { SubagentReturn } from "../../../plugins/subagents/child-return.js";

const base: SubagentReturn = {
  contract: "subagent-return",
  version: 1,
  status: "succeeded",
  stopReasons: [],
  text: "Tides follow the moon.",
  completedSteps: [],
  missingSteps: [],
  payload: null,
  suggestions: [],
  retryable: false,
  schemaValid: null,
};
const tokenCap = { reason: "token_capped", by: "token-budget", limit: { type: "tokens" as const, value: 500000 } };
const turnCap = { reason: "turn_capped", by: "kernel", limit: { type: "turns" as const, value: 150 } };

describe("the task's tool message text (display only)", () => {
  it("reads `Task Succeeded. Result: …`", () => {
    expect(displayText(base, [])).toBe("Task Succeeded. Result: Tides follow the moon.");
  });

  it("reads `Task Succeeded (capped: token budget). Result: …` for an accepted capped partial", () => {
    const ret = { ...base, status: "partial" as const, stopReasons: [tokenCap], primaryStopReason: "token_capped" };
    expect(displayText(ret, []).split("\n")[0]).toBe("Task Succeeded (capped: token budget). Result: Tides follow the moon.");
    expect(displayText({ ...base, status: "partial" }, [])).toBe("Task Succeeded (partial). Result: Tides follow the moon.");
  });

  it("reads `Task failed (capped: turn budget). Error: Reached max_turns=N`", () => {
    const ret: SubagentReturn = {
      ...base,
      status: "failed",
      text: "",
      stopReasons: [turnCap],
      primaryStopReason: "turn_capped",
      error: { type: "turn_capped", message: "Reached max_turns=150", retryable: false },
    };
    expect(displayText(ret, [])).toBe("Task failed (capped: turn budget). Error: Reached max_turns=150");
  });

  it("adds the report, payload, inventory, verification, reason, suggestions and evidence lines", () => {
    const ret: SubagentReturn = {
      ...base,
      status: "failed",
      text: "Read the notes.",
      error: { type: "partial_not_accepted", message: "partial not accepted: no verification handle", retryable: true },
      reason: "partial not accepted: no verification handle",
      payload: { rows: 9 },
      completedSteps: ["read"],
      missingSteps: ["write"],
      stoppedAtStep: "write",
      verification: { type: "rows", expected: 12, found: 9 },
      suggestions: ["retry with more turns"],
      schemaValid: false,
    };
    expect(displayText(ret, ["citations: UNVERIFIED — action claims without receipt citations", ""]).split("\n")).toEqual([
      "Task failed. Error: partial not accepted: no verification handle",
      "Report: Read the notes.",
      'Payload: {"rows":9}',
      "Completed steps: read",
      "Missing steps: write (stopped at: write)",
      "Verification: rows expected=12 found=9",
      "Output schema: payload INVALID",
      "Suggestions: retry with more turns",
      "citations: UNVERIFIED — action claims without receipt citations",
    ]);
  });

  it("names timed out and cancelled tasks", () => {
    expect(displayText({ ...base, status: "timed_out", text: "", error: { type: "timed_out", message: "Exceeded timeoutSeconds=1800", retryable: true } }, [])).toBe(
      "Task timed out. Error: Exceeded timeoutSeconds=1800",
    );
    expect(displayText({ ...base, status: "cancelled", text: "", error: { type: "KEEL_ERR_RUN_CANCELLED", message: "Run cancelled", retryable: true } }, [])).toBe(
      "Task cancelled. Error: Run cancelled",
    );
  });

  it("labels every known cap, and falls back to the reason's words", () => {
    expect(["loop_capped", "lease_expired", "safety_capped", "custom_thing"].map(capLabel)).toEqual(["loop", "lease expired", "safety", "custom thing"]);
  });
});

describe("resultBrief (delegation@1)", () => {
  it("keeps ≤2,000 characters as they are and cuts longer text to its first 1,330 and last 665", () => {
    expect(resultBrief("x".repeat(2000))).toHaveLength(2000);
    const long = `${"a".repeat(1330)}${"m".repeat(1000)}${"z".repeat(665)}`;
    const brief = resultBrief(long);
    expect(brief).toBe(`${"a".repeat(1330)}\n...\n${"z".repeat(665)}`);
    expect(brief).toHaveLength(2000);
  });
});
