import { describe, expect, it } from "vitest";
import { assertValid, contracts, getContract, parseContractRef, validate } from "../../contracts/index.js";
import { KeelError } from "../../kernel/errors.js";
import {
  validJournalEntry,
  validManifest,
  validRunReport,
  validRunReportV2,
  validScenario,
  validStack,
  validStatus,
  validStreamEvents,
} from "./fixtures.js";
import { moreValidPayloads } from "./more-fixtures.js";

type Json = Record<string, any>;

interface Case {
  ref: string;
  valid: unknown;
  /** Break the (cloned) valid payload in one realistic way. */
  breakIt: (payload: Json) => void;
  pointer: string;
}

const cases: Case[] = [
  { ref: "manifest@1", valid: validManifest, breakIt: (p) => (p.name = "Loop Detection"), pointer: "/name" },
  { ref: "stack@1", valid: validStack, breakIt: (p) => (p.order = [["sanitize"]]), pointer: "/order/0" },
  { ref: "status@2", valid: validStatus, breakIt: (p) => (p.status = "completed"), pointer: "/status" },
  { ref: "status@2", valid: validStatus, breakIt: (p) => (p.stopReasons[0].limit.type = "steps"), pointer: "/stopReasons/0/limit/type" },
  { ref: "status@2", valid: validStatus, breakIt: (p) => (p.resultSha256 = "ABC"), pointer: "/resultSha256" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => delete p.agents, pointer: "/agents" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => delete p.agents.lead, pointer: "/agents/lead" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => (p.maxTurns = 0), pointer: "/maxTurns" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => (p.agents.lead.turns[0].toolCalls[0].args = "notes.md"), pointer: "/agents/lead/turns/0/toolCalls/0/args" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => (p.agents["general-purpose"].then = "loop"), pointer: "/agents/general-purpose/then" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => (p.stack = { name: "x", plugins: [42] }), pointer: "/stack/plugins/0" },
  { ref: "scenario@1", valid: validScenario, breakIt: (p) => (p.faults[0].turn = 0), pointer: "/faults/0/turn" },
  { ref: "run-report@1", valid: validRunReport, breakIt: (p) => delete p.turns.total, pointer: "/turns/total" },
  { ref: "run-report@1", valid: validRunReport, breakIt: (p) => (p.messages[0].role = "human"), pointer: "/messages/0/role" },
  { ref: "run-report@1", valid: validRunReport, breakIt: (p) => (p.outcome.status = "success"), pointer: "/outcome/status" },
  { ref: "run-report@1", valid: validRunReport, breakIt: (p) => (p.workspace.files["report.md"].sha256 = "abc"), pointer: "/workspace/files/report.md/sha256" },
  { ref: "run-report@1", valid: validRunReport, breakIt: (p) => (p.events[3].data.action = "explode"), pointer: "/events/3/data/action" },
  { ref: "run-report@2", valid: validRunReportV2, breakIt: (p) => (p.modelRequests[1].parts[0].copy = [0, 0]), pointer: "/modelRequests/1/parts/0/copy/1" },
  { ref: "run-report@2", valid: validRunReportV2, breakIt: (p) => (p.modelRequests[1].base = -1), pointer: "/modelRequests/1/base" },
  { ref: "run-report@2", valid: validRunReportV2, breakIt: (p) => (p.version = 1), pointer: "/version" },
  ...validStreamEvents.map((event) => ({ ref: "stream-event@1", valid: event, breakIt: (p: Json) => (p.id = "abc"), pointer: "/id" })),
  { ref: "stream-event@1", valid: validStreamEvents[3], breakIt: (p) => delete p.data.agent, pointer: "/data/agent" },
  { ref: "stream-event@1", valid: validStreamEvents[4], breakIt: (p) => (p.data.phase = "done"), pointer: "/data/phase" },
  { ref: "stream-event@1", valid: validStreamEvents[5], breakIt: (p) => (p.data.recovery = "retry"), pointer: "/data/recovery" },
  { ref: "journal-entry@1", valid: validJournalEntry, breakIt: (p) => (p.kind = "model"), pointer: "/kind" },
  { ref: "journal-entry@1", valid: validJournalEntry, breakIt: (p) => (p.at = "yesterday"), pointer: "/at" },
];

describe("contract payloads", () => {
  it("covers every registered contract", () => {
    // Contracts added later are covered case by case in contract-payloads.test.ts.
    const covered = new Set([...cases.map((c) => c.ref), ...Object.keys(moreValidPayloads)]);
    expect(contracts.map((c) => `${c.name}@${c.version}`).filter((ref) => !covered.has(ref))).toEqual([]);
  });

  it.each(cases.map((c, i) => [`${c.ref} #${i}`, c] as const))("%s: valid payload round-trips", (_, c) => {
    expect(validate(c.ref, c.valid)).toEqual({ valid: true, errors: [] });
    expect(validate(c.ref, JSON.parse(JSON.stringify(c.valid)))).toEqual({ valid: true, errors: [] });
  });

  it.each(cases.map((c) => [`${c.ref} ${c.pointer}`, c] as const))("%s: invalid payload is rejected at the pointer", (_, c) => {
    const broken = structuredClone(c.valid) as Json;
    c.breakIt(broken);
    const result = validate(c.ref, broken);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.pointer)).toContain(c.pointer);
  });

  it("reports only the matching union branch of a stream event", () => {
    const event = structuredClone(validStreamEvents[3]) as Json;
    event.data.action = "explode";
    expect(validate("stream-event@1", event).errors).toEqual([{ pointer: "/data/action", message: "must be equal to one of the allowed values" }]);
  });

  it("rejects a typo'd property in a closed payload", () => {
    const result = validate("status@2", { ...validStatus, stopReason: [] });
    expect(result.errors).toEqual([{ pointer: "/stopReason", message: "unknown property `stopReason`" }]);
  });

  it("rejects an unknown stream event name", () => {
    const result = validate("stream-event@1", { ...validStreamEvents[0], event: "heartbeat" });
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.pointer).toBe("/event");
    expect(result.errors[0]!.message).toContain('`"guard"`');
  });
});

describe("registry", () => {
  it("parses contract references", () => {
    expect(parseContractRef("status@2")).toEqual({ name: "status", version: 2 });
    expect(parseContractRef("run-report@v1")).toEqual({ name: "run-report", version: 1 });
    expect(() => parseContractRef("status")).toThrow(KeelError);
  });

  it("finds contracts by name and version or by reference", () => {
    expect(getContract("scenario", 1).title).toMatch(/scenario/);
    expect(getContract("stream-event@1").name).toBe("stream-event");
    expect(validate({ name: "status", version: 2 }, validStatus).valid).toBe(true);
  });

  it("throws KEEL_ERR_CONTRACT_UNKNOWN for an unknown contract", () => {
    for (const ref of ["status@9", "nope@1", "not a ref"]) {
      let error: unknown;
      try {
        validate(ref, {});
      } catch (e) {
        error = e;
      }
      expect((error as KeelError).code).toBe("KEEL_ERR_CONTRACT_UNKNOWN");
    }
  });

  it("assertValid returns the payload, or throws KEEL_ERR_CONTRACT_VIOLATION with the pointer", () => {
    expect(assertValid("journal-entry@1", validJournalEntry)).toBe(validJournalEntry);
    let error: unknown;
    try {
      assertValid("journal-entry@1", { ...validJournalEntry, durationMs: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeelError);
    expect((error as KeelError).code).toBe("KEEL_ERR_CONTRACT_VIOLATION");
    expect((error as KeelError).pointer).toBe("/durationMs");
    expect((error as KeelError).message).toContain("journal-entry@1");
  });
});
