import { describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { project, toResultBrief, upgrade } from "../../contracts/status/migrate.js";
import type { StatusV1 } from "../../contracts/status/v1.js";
import type { StatusV2 } from "../../contracts/status/v2.js";

const SHA = "c".repeat(64);
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const legacy = (reason: string) => ({ reason, by: "legacy" });

function v2(fields: Partial<StatusV2> & Pick<StatusV2, "status">): StatusV2 {
  return { contract: "status", version: 2, stopReasons: [], text: "", ...fields };
}

describe("upgrade(status@1) → status@2", () => {
  const cases: Array<[string, StatusV1, StatusV2]> = [
    ["completed", { status: "completed", resultBrief: "Done." }, v2({ status: "succeeded", text: "Done." })],
    ["completed, empty result", { status: "completed" }, v2({ status: "succeeded", text: "" })],
    [
      "completed + stop reason → partial",
      { status: "completed", stopReason: "token_capped", resultBrief: "Half." },
      v2({ status: "partial", stopReasons: [legacy("token_capped")], primaryStopReason: "token_capped", text: "Half." }),
    ],
    [
      "max_turns_reached with a brief → partial + turn_capped",
      { status: "max_turns_reached", resultBrief: "Most of it." },
      v2({ status: "partial", stopReasons: [legacy("turn_capped")], primaryStopReason: "turn_capped", text: "Most of it." }),
    ],
    [
      "max_turns_reached without a brief → failed + turn_capped",
      { status: "max_turns_reached", error: "Reached max_turns=150" },
      v2({
        status: "failed",
        stopReasons: [legacy("turn_capped")],
        primaryStopReason: "turn_capped",
        text: "Reached max_turns=150",
        error: { type: "error", message: "Reached max_turns=150", retryable: false },
      }),
    ],
    [
      "max_turns_reached with a blank brief → failed",
      { status: "max_turns_reached", resultBrief: "  \n" },
      v2({ status: "failed", stopReasons: [legacy("turn_capped")], primaryStopReason: "turn_capped", text: "  \n" }),
    ],
    [
      "max_turns_reached: an explicit stop reason wins",
      { status: "max_turns_reached", stopReason: "loop_capped", resultBrief: "Some." },
      v2({ status: "partial", stopReasons: [legacy("loop_capped")], primaryStopReason: "loop_capped", text: "Some." }),
    ],
    [
      "max_turns_reached without a brief, explicit stop reason",
      { status: "max_turns_reached", stopReason: "token_capped" },
      v2({ status: "failed", stopReasons: [legacy("token_capped")], primaryStopReason: "token_capped", text: "" }),
    ],
    [
      "polling_timed_out → timed_out + polling_timed_out",
      { status: "polling_timed_out", error: "polling gave up after 900s" },
      v2({
        status: "timed_out",
        stopReasons: [legacy("polling_timed_out")],
        primaryStopReason: "polling_timed_out",
        text: "polling gave up after 900s",
        error: { type: "timeout", message: "polling gave up after 900s", retryable: true },
      }),
    ],
    [
      "failed",
      { status: "failed", error: "boom", tokenUsage: usage },
      v2({ status: "failed", text: "boom", error: { type: "error", message: "boom", retryable: false }, usage }),
    ],
    ["failed + stop reason", { status: "failed", stopReason: "turn_capped" }, v2({ status: "failed", stopReasons: [legacy("turn_capped")], primaryStopReason: "turn_capped" })],
    ["cancelled", { status: "cancelled", error: "user cancelled" }, v2({ status: "cancelled", text: "user cancelled", error: { type: "cancelled", message: "user cancelled", retryable: false } })],
    ["timed_out", { status: "timed_out" }, v2({ status: "timed_out" })],
    [
      "hash and usage are carried; the brief wins over the error for text",
      { status: "completed", resultBrief: "Tides.", error: "warning", resultSha256: SHA, tokenUsage: usage },
      v2({ status: "succeeded", text: "Tides.", error: { type: "error", message: "warning", retryable: false }, resultSha256: SHA, usage }),
    ],
  ];

  it.each(cases)("%s", (_, input, expected) => {
    expect(validate("status@1", input)).toEqual({ valid: true, errors: [] });
    const upgraded = upgrade(input);
    expect(upgraded).toEqual(expected);
    expect(validate("status@2", upgraded)).toEqual({ valid: true, errors: [] });
  });

  it("covers every status@1 status", () => {
    const covered = new Set(cases.map(([, input]) => input.status));
    expect([...covered].sort()).toEqual(["cancelled", "completed", "failed", "max_turns_reached", "polling_timed_out", "timed_out"]);
  });

  it("does not alias the caller's usage object", () => {
    const input: StatusV1 = { status: "completed", tokenUsage: { ...usage } };
    const upgraded = upgrade(input);
    upgraded.usage!.inputTokens = 99;
    expect(input.tokenUsage!.inputTokens).toBe(10);
  });
});

describe("project(status@2) → status@1", () => {
  const cases: Array<[string, StatusV2, StatusV1]> = [
    ["succeeded", v2({ status: "succeeded", text: "Done.", resultSha256: SHA, usage }), { status: "completed", resultBrief: "Done.", resultSha256: SHA, tokenUsage: usage }],
    ["succeeded with an empty result", v2({ status: "succeeded" }), { status: "completed" }],
    [
      "partial → completed + the primary stop reason",
      v2({
        status: "partial",
        stopReasons: [{ reason: "turn_capped", by: "kernel" }, { reason: "token_capped", by: "token-budget" }],
        primaryStopReason: "token_capped",
        text: "Half.",
      }),
      { status: "completed", stopReason: "token_capped", resultBrief: "Half." },
    ],
    [
      "partial without primaryStopReason: the most severe is computed",
      v2({ status: "partial", stopReasons: [{ reason: "turn_capped", by: "kernel" }, { reason: "loop_capped", by: "loop-detection" }], text: "Some." }),
      { status: "completed", stopReason: "loop_capped", resultBrief: "Some." },
    ],
    [
      "partial whose primary stop reason status@1 does not know → no stopReason",
      v2({ status: "partial", stopReasons: [{ reason: "safety_capped", by: "finish-reason" }, { reason: "turn_capped", by: "kernel" }], primaryStopReason: "safety_capped", text: "Cut." }),
      { status: "completed", resultBrief: "Cut." },
    ],
    [
      "failed: error message, text repeating it is not a brief",
      v2({ status: "failed", text: "boom", error: { type: "provider", message: "boom", retryable: true } }),
      { status: "failed", error: "boom" },
    ],
    [
      "failed with its own text and a known stop reason",
      v2({ status: "failed", stopReasons: [{ reason: "turn_capped", by: "kernel" }], text: "Task failed (capped: turn budget).", error: { type: "turn_capped", message: "Reached max_turns=150", retryable: false } }),
      { status: "failed", stopReason: "turn_capped", error: "Reached max_turns=150", resultBrief: "Task failed (capped: turn budget)." },
    ],
    ["cancelled", v2({ status: "cancelled", text: "Run cancelled", error: { type: "KEEL_ERR_RUN_CANCELLED", message: "Run cancelled", retryable: true } }), { status: "cancelled", error: "Run cancelled" }],
    ["timed_out", v2({ status: "timed_out", text: "" }), { status: "timed_out" }],
    [
      "timed_out by polling → polling_timed_out",
      v2({ status: "timed_out", stopReasons: [{ reason: "polling_timed_out", by: "subagents" }] }),
      { status: "polling_timed_out" },
    ],
  ];

  it.each(cases)("%s", (_, input, expected) => {
    expect(validate("status@2", input)).toEqual({ valid: true, errors: [] });
    const projected = project(input);
    expect(projected).toEqual(expected);
    expect(validate("status@1", projected)).toEqual({ valid: true, errors: [] });
  });

  it("covers every status@2 status", () => {
    expect([...new Set(cases.map(([, input]) => input.status))].sort()).toEqual(["cancelled", "failed", "partial", "succeeded", "timed_out"]);
  });

  it("cuts a long text to a 2,000-character brief, head and tail kept", () => {
    const text = `${"h".repeat(1500)}${"t".repeat(1500)}`;
    const projected = project(v2({ status: "succeeded", text }));
    expect(projected.resultBrief).toHaveLength(2000);
    expect(projected.resultBrief).toBe(`${"h".repeat(1330)}\n...\n${"t".repeat(665)}`);
    expect(validate("status@1", projected).valid).toBe(true);
    expect(toResultBrief("short")).toBe("short");
    expect(toResultBrief("x".repeat(2000))).toBe("x".repeat(2000));
  });
});

describe("project ∘ upgrade", () => {
  const lossless: StatusV1[] = [
    { status: "completed", resultBrief: "Done.", resultSha256: SHA, tokenUsage: usage },
    { status: "completed" },
    { status: "completed", stopReason: "turn_capped", resultBrief: "Half." },
    { status: "completed", stopReason: "loop_capped", resultBrief: "Half.", tokenUsage: usage },
    { status: "failed", error: "boom" },
    { status: "failed", stopReason: "token_capped", error: "over budget" },
    { status: "failed", error: "boom", resultBrief: "partial notes" },
    { status: "cancelled" },
    { status: "cancelled", error: "user cancelled" },
    { status: "timed_out", error: "1800s" },
    { status: "polling_timed_out" },
    { status: "polling_timed_out", error: "gave up" },
  ];

  it.each(lossless.map((v1) => [JSON.stringify(v1), v1] as const))("%s survives upgrade then project", (_, v1) => {
    expect(project(upgrade(v1))).toEqual(v1);
  });

  it("max_turns_reached is read only: it comes back as completed or failed with turn_capped", () => {
    expect(project(upgrade({ status: "max_turns_reached", resultBrief: "Most." }))).toEqual({ status: "completed", stopReason: "turn_capped", resultBrief: "Most." });
    expect(project(upgrade({ status: "max_turns_reached" }))).toEqual({ status: "failed", stopReason: "turn_capped" });
  });

  it("upgrade ∘ project keeps what status@1 can hold", () => {
    const outcome = v2({ status: "partial", stopReasons: [legacy("token_capped")], primaryStopReason: "token_capped", text: "Half.", resultSha256: SHA, usage });
    expect(upgrade(project(outcome))).toEqual(outcome);
    const succeeded = v2({ status: "succeeded", text: "Done." });
    expect(upgrade(project(succeeded))).toEqual(succeeded);
  });
});
