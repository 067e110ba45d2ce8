import { describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import type { StatusV2Payload } from "../../../kernel/loop/status.js";
import { judgeChildReturn, partialRuleViolation, type ChildEnd } from "../../../plugins/subagents/child-return.js";
import type { ReturnArgs } from "../../../plugins/subagents/return-result.js";

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
const loopCap = { reason: "loop_capped", by: "loop-detection", turn: 5, limit: { type: "calls" as const, value: 5 } };

/** The kernel's view of a child that ended through return_result (no assistant text: "no usable output"). */
function outcome(stopReasons: StatusV2Payload["stopReasons"] = [], overrides: Partial<StatusV2Payload> = {}): StatusV2Payload {
  const message = stopReasons.length > 0 ? `Stopped (${stopReasons[0]!.reason}) without usable output` : "The run ended without usable output";
  return {
    contract: "status",
    version: 2,
    status: "failed",
    stopReasons,
    text: message,
    error: { type: stopReasons[0]?.reason ?? "no_usable_output", message, retryable: false },
    ...overrides,
  };
}

const inventory: Pick<ReturnArgs, "completedSteps" | "missingSteps"> = { completedSteps: ["read"], missingSteps: ["polish"] };
const end = (returned: ReturnArgs | null, stops: StatusV2Payload["stopReasons"] = [], extra: Partial<ChildEnd> = {}): ChildEnd => ({
  outcome: outcome(stops),
  returned,
  interruption: null,
  usage,
  ...extra,
});

describe("judgeChildReturn (subagent-return@1 rules)", () => {
  it("a valid return with no stop reason is the child's claim, and validates as subagent-return@1", () => {
    const ret = judgeChildReturn(end({ status: "succeeded", text: "Done [r1 write_file].", payload: { n: 1 }, ...inventory }), {});
    expect(ret).toMatchObject({ status: "succeeded", text: "Done [r1 write_file].", schemaValid: null, payload: { n: 1 }, stopReasons: [] });
    expect(ret.error).toBeUndefined();
    expect(validate("subagent-return@1", ret)).toEqual({ valid: true, errors: [] });
  });

  it("is the worse of the claim and what the runtime saw: a capped `succeeded` is at best partial", () => {
    const accepted = judgeChildReturn(end({ status: "succeeded", text: "One sentence.", ...inventory, verification: { type: "sentences", expected: 1, found: 1 } }, [loopCap]), {});
    expect(accepted).toMatchObject({ status: "partial", primaryStopReason: "loop_capped", limit: { type: "calls", value: 5 } });
    const claimedFailed = judgeChildReturn(end({ status: "failed", text: "Could not.", reason: "no access" }), {});
    expect(claimedFailed).toMatchObject({ status: "failed", error: { type: "child_reported_failure", message: "no access" }, reason: "no access" });
  });

  it("accepts a partial only with inventory, a verification handle, and nothing missing on the critical path", () => {
    const verification = { type: "rows", expected: 12, found: 9 };
    const full: ReturnArgs = { status: "partial", text: "9 of 12 rows.", ...inventory, verification };
    expect(judgeChildReturn(end(full), { criticalPath: ["read"] }).status).toBe("partial");

    const critical = judgeChildReturn(end(full), { criticalPath: ["Polish"] });
    expect(critical).toMatchObject({ status: "failed", reason: "partial not accepted: missing step `polish` is on the caller's critical path" });
    expect(critical.completedSteps).toEqual(["read"]);
    expect(critical.missingSteps).toEqual(["polish"]);
    expect(critical.error).toEqual({ type: "partial_not_accepted", message: critical.reason, retryable: false });

    const { verification: _v, ...noHandle } = full;
    expect(judgeChildReturn(end(noHandle), {}).reason).toBe("partial not accepted: no verification handle");
    expect(judgeChildReturn(end({ status: "partial", text: "x", verification }), {}).reason).toBe(
      "partial not accepted: no inventory (completedSteps and missingSteps) was handed back",
    );
  });

  it("judges a child that never called return_result by the kernel rules, with no inventory (never an accepted partial)", () => {
    const partialOutcome: StatusV2Payload = { contract: "status", version: 2, status: "partial", stopReasons: [loopCap], primaryStopReason: "loop_capped", text: "Partial answer." };
    const textOnly: ChildEnd = { outcome: partialOutcome, returned: null, interruption: null, usage };
    const ret = judgeChildReturn(textOnly, {});
    expect(ret).toMatchObject({ status: "failed", text: "Partial answer.", completedSteps: [], missingSteps: [] });
    expect(ret.reason).toContain("no inventory");

    const turnCapped = judgeChildReturn(
      { outcome: outcome([{ reason: "turn_capped", by: "kernel", limit: { type: "turns", value: 3 } }], { text: "Reached max_turns=3", error: { type: "turn_capped", message: "Reached max_turns=3", retryable: false } }), returned: null, interruption: null, usage },
      {},
    );
    expect(turnCapped).toMatchObject({ status: "failed", error: { message: "Reached max_turns=3" }, primaryStopReason: "turn_capped", text: "" });
  });

  it("fails closed on an outputSchema: invalid → failed with schemaValid false whatever the child said; valid → true", () => {
    const schema = { type: "object", required: ["count"], properties: { count: { type: "integer" } } };
    const bad = judgeChildReturn(end({ status: "succeeded", text: "Twelve.", payload: { count: "twelve" }, ...inventory }), { outputSchema: schema });
    expect(bad).toMatchObject({ status: "failed", schemaValid: false, error: { type: "schema_invalid" }, payload: { count: "twelve" } });
    expect(bad.reason).toBe("payload does not match the caller's outputSchema (/count: must be integer)");
    const good = judgeChildReturn(end({ status: "succeeded", text: "12.", payload: { count: 12 }, ...inventory }), { outputSchema: schema });
    expect(good).toMatchObject({ status: "succeeded", schemaValid: true });
    // No return at all: the (null) payload is judged against the schema too.
    expect(judgeChildReturn(end(null), { outputSchema: schema }).schemaValid).toBe(false);
  });

  it("maps interruptions: lease expiry → failed + lease_expired, timeout → timed_out, parent cancel → cancelled", () => {
    const lease = judgeChildReturn(end({ status: "succeeded", text: "late", ...inventory }, [], { interruption: { kind: "lease_expired", ttlMs: 200 } }), {});
    expect(lease).toMatchObject({ status: "failed", primaryStopReason: "lease_expired", error: { type: "lease_expired", retryable: true } });
    expect(lease.stopReasons).toEqual([{ reason: "lease_expired", by: "batch-leasing", detail: "no heartbeat from the child for 200 ms", limit: { type: "seconds", value: 0.2 } }]);
    const timeout = judgeChildReturn(end(null, [], { interruption: { kind: "timeout", seconds: 30 } }), {});
    expect(timeout).toMatchObject({ status: "timed_out", limit: { type: "seconds", value: 30 }, error: { message: "Exceeded timeoutSeconds=30" } });
    const cancelled = judgeChildReturn(end(null, [], { interruption: { kind: "parent_cancelled" } }), {});
    expect(cancelled.status).toBe("cancelled");
    for (const ret of [lease, timeout, cancelled]) expect(validate("subagent-return@1", ret).valid).toBe(true);
  });

  it("carries the caller's terms", () => {
    const ret = judgeChildReturn(end({ status: "succeeded", text: "ok", ...inventory }), { criticalPath: ["read"], callerNextAction: "merge it" });
    expect(ret).toMatchObject({ criticalPath: ["read"], callerNextAction: "merge it" });
  });
});

describe("partialRuleViolation", () => {
  it("names the first rule that fails", () => {
    expect(partialRuleViolation(null, [])).toContain("no inventory");
    expect(partialRuleViolation({ status: "partial", text: "", completedSteps: [], missingSteps: ["a"], verification: { type: "t", expected: 1, found: 0 } }, ["a"])).toContain("`a`");
    expect(partialRuleViolation({ status: "partial", text: "", completedSteps: [], missingSteps: [], verification: { type: "t", expected: 1, found: 1 } }, ["a"])).toBeNull();
  });
});
