import { describe, expect, it } from "vitest";
import { assertValid, validate } from "../../contracts/index.js";
import { validRunReport, validScenario, validStatus, validStreamEvents } from "./fixtures.js";

type Json = Record<string, any>;

describe("tolerant reader", () => {
  it("drops properties unknown to the schema, at every depth, and validates", () => {
    const newer = structuredClone(validRunReport) as Json;
    newer.costUsd = 0.12; // top level
    newer.outcome.confidence = 0.9; // nested object
    newer.outcome.stopReasons = [{ reason: "budget_exceeded", by: "token-budget", severity: 3 }]; // array items
    newer.messages[1].toolCalls[0].index = 0; // array in array
    newer.workspace.files["report.md"].mode = 420; // record values
    newer.events[3].data.confidence = "high"; // union branch (guard)
    newer.events[0].data.extra = true; // open object: kept

    expect(validate("run-report@1", newer).valid).toBe(false);
    expect(validate("run-report@1", newer, { tolerant: true })).toEqual({ valid: true, errors: [] });

    const read = assertValid<Json>("run-report@1", newer, { tolerant: true });
    expect(read.costUsd).toBeUndefined();
    expect(read.outcome.confidence).toBeUndefined();
    expect(read.outcome.stopReasons[0]).toEqual({ reason: "budget_exceeded", by: "token-budget" });
    expect(read.messages[1].toolCalls[0]).toEqual({ id: "t1", name: "task", args: { description: "tides" } });
    expect(read.workspace.files["report.md"]).toEqual({ bytes: 120, sha256: "a".repeat(64) });
    expect(read.events[3].data).toEqual(validStreamEvents[3]!.data);
    expect(read.events[0].data.extra).toBe(true);
  });

  it("does not touch the caller's payload", () => {
    const newer = { ...validStatus, confidence: 0.9 };
    expect(validate("status@2", newer, { tolerant: true }).valid).toBe(true);
    expect(newer.confidence).toBe(0.9);
  });

  it("keeps free-form maps: tool call args, plugin config, subagent scripts", () => {
    const scenario = structuredClone(validScenario) as Json;
    scenario.agents.reviewer = { turns: [{ content: "ok", mood: "calm" }] };
    const read = assertValid<Json>("scenario@1", scenario, { tolerant: true });
    expect(read.agents.reviewer).toEqual({ turns: [{ content: "ok" }] });
    expect(read.config).toEqual(validScenario.config);
    expect(read.agents.lead.turns[0].toolCalls[0].args).toEqual(validScenario.agents.lead.turns[0]!.toolCalls![0]!.args);
  });

  it("still rejects real violations", () => {
    const newer = { ...validStatus, confidence: 0.9, status: "completed" };
    const result = validate("status@2", newer, { tolerant: true });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ pointer: "/status", message: "must be equal to one of the allowed values" }]);

    const missing = structuredClone(validScenario) as Json;
    delete missing.input;
    missing.labels = ["x"];
    expect(validate("scenario@1", missing, { tolerant: true }).errors).toEqual([{ pointer: "/input", message: "missing required property `input`" }]);
  });
});
