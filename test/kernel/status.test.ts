import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import { deriveStatus, primaryStopReason } from "../../kernel/loop/status.js";

const ai = (content: string) => new AIMessage({ content });

describe("status@2 derivation", () => {
  it("succeeded only with usable output and no stop reason", () => {
    const s = deriveStatus({ messages: [ai("  Done. ")], stopReasons: [] });
    expect(s).toMatchObject({ status: "succeeded", text: "Done.", stopReasons: [] });
    expect(s.resultSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(validate("status@2", s).valid).toBe(true);
  });

  it("any stop reason with usable output is partial; the request field is not published", () => {
    const s = deriveStatus({ messages: [ai("half")], stopReasons: [{ reason: "token_capped", by: "token-budget", request: "final" }] });
    expect(s.status).toBe("partial");
    expect(s.stopReasons).toEqual([{ reason: "token_capped", by: "token-budget" }]);
    expect(validate("status@2", s).valid).toBe(true);
  });

  it("no usable output is failed; guard-added text does not count", () => {
    const msg = setKeelMeta(ai("[stopped]"), { addedText: "[stopped]" });
    const s = deriveStatus({ messages: [msg], stopReasons: [{ reason: "safety_capped", by: "finish-reason" }] });
    expect(s).toMatchObject({ status: "failed", error: { type: "safety_capped", message: "Stopped (safety_capped) without usable output" } });
  });

  it("the error fallback on the last assistant message is failed", () => {
    const fallback = setKeelMeta(ai("provider failed"), { errorFallback: { type: "rate_limited", message: "429 rate limited", retryable: true } });
    expect(deriveStatus({ messages: [ai("earlier"), fallback], stopReasons: [] })).toMatchObject({ status: "failed", text: "429 rate limited", error: { type: "rate_limited", retryable: true } });
    // Only the last assistant message is consulted.
    expect(deriveStatus({ messages: [fallback, ai("recovered")], stopReasons: [] }).status).toBe("succeeded");
  });

  it("orders severity: safety > budget/token > loop > progress > subagent_limit > turn > model_length > others", () => {
    const reasons = (...r: string[]) => r.map((reason) => ({ reason, by: "x" }));
    expect(primaryStopReason(reasons("turn_capped", "loop_capped", "custom"))).toBe("loop_capped");
    expect(primaryStopReason(reasons("model_length_capped", "custom"))).toBe("model_length_capped");
    expect(primaryStopReason(reasons("custom", "progress_blocked", "token_capped", "safety_capped"))).toBe("safety_capped");
    expect(primaryStopReason(reasons("subagent_limit_capped", "turn_capped"))).toBe("subagent_limit_capped");
    expect(primaryStopReason(reasons("custom"))).toBe("custom");
    expect(primaryStopReason([])).toBeUndefined();
  });
});
