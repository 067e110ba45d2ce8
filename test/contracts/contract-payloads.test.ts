import { describe, expect, it } from "vitest";
import { contractSchema, validate } from "../../contracts/index.js";
import { moreValidPayloads } from "./more-fixtures.js";

type Json = Record<string, any>;

const SHA = "b".repeat(64);
const valid = moreValidPayloads;

interface Case {
  ref: string;
  what: string;
  breakIt: (p: Json) => void;
  pointer: string;
}

const cases: Case[] = [
  { ref: "status@1", what: "status@2 status", breakIt: (p) => (p.status = "succeeded"), pointer: "/status" },
  { ref: "status@1", what: "unknown stop reason", breakIt: (p) => (p.stopReason = "safety_capped"), pointer: "/stopReason" },
  { ref: "status@1", what: "brief over 2000", breakIt: (p) => (p.resultBrief = "x".repeat(2001)), pointer: "/resultBrief" },
  { ref: "status@1", what: "short sha", breakIt: (p) => (p.resultSha256 = "abc"), pointer: "/resultSha256" },
  { ref: "status@1", what: "status@2 field name", breakIt: (p) => (p.usage = p.tokenUsage), pointer: "/usage" },
  { ref: "status@1", what: "contract field", breakIt: (p) => (p.contract = "status"), pointer: "/contract" },
  { ref: "subagent-return@1", what: "wrong contract", breakIt: (p) => (p.contract = "status"), pointer: "/contract" },
  { ref: "subagent-return@1", what: "wrong version", breakIt: (p) => (p.version = 2), pointer: "/version" },
  { ref: "subagent-return@1", what: "missing payload", breakIt: (p) => delete p.payload, pointer: "/payload" },
  { ref: "subagent-return@1", what: "missing inventory", breakIt: (p) => delete p.missingSteps, pointer: "/missingSteps" },
  { ref: "subagent-return@1", what: "schemaValid string", breakIt: (p) => (p.schemaValid = "yes"), pointer: "/schemaValid" },
  { ref: "subagent-return@1", what: "verification count", breakIt: (p) => (p.verification.found = "8"), pointer: "/verification/found" },
  { ref: "receipt@1", what: "id r0", breakIt: (p) => (p.id = "r0"), pointer: "/id" },
  { ref: "receipt@1", what: "id without r", breakIt: (p) => (p.id = "12"), pointer: "/id" },
  { ref: "receipt@1", what: "64-hex args hash", breakIt: (p) => (p.argsSha256 = SHA), pointer: "/argsSha256" },
  { ref: "receipt@1", what: "uppercase output hash", breakIt: (p) => (p.outputSha256 = "FEDCBA9876543210"), pointer: "/outputSha256" },
  { ref: "receipt@1", what: "negative bytes", breakIt: (p) => (p.bytes = -1), pointer: "/bytes" },
  { ref: "receipt@1", what: "status ok", breakIt: (p) => (p.status = "ok"), pointer: "/status" },
  { ref: "receipt@1", what: "createdAt not a date", breakIt: (p) => (p.createdAt = "today"), pointer: "/createdAt" },
  { ref: "receipt-verdict@1", what: "wrong source", breakIt: (p) => (p.source = "receipts"), pointer: "/source" },
  { ref: "receipt-verdict@1", what: "failed without reason", breakIt: (p) => delete p.failed[0].reason, pointer: "/failed/0/reason" },
  { ref: "acceptance-verdict@1", what: "wrong source", breakIt: (p) => (p.source = "acceptance"), pointer: "/source" },
  { ref: "acceptance-verdict@1", what: "leaf without holds", breakIt: (p) => delete p.leaves[1].holds, pointer: "/leaves/1/holds" },
  { ref: "delegation@1", what: "description over 200", breakIt: (p) => (p.description = "d".repeat(201)), pointer: "/description" },
  { ref: "delegation@1", what: "brief over 2000", breakIt: (p) => (p.resultBrief = "x".repeat(2001)), pointer: "/resultBrief" },
  { ref: "delegation@1", what: "status@1 status", breakIt: (p) => (p.status = "completed"), pointer: "/status" },
  { ref: "delegation@1", what: "stop reason without by", breakIt: (p) => delete p.stopReasons[0].by, pointer: "/stopReasons/0/by" },
  { ref: "delegation@1", what: "bad receipt verdict", breakIt: (p) => (p.receiptVerdict.cited = "r1"), pointer: "/receiptVerdict/cited" },
  { ref: "delegation@1", what: "bad acceptance verdict", breakIt: (p) => (p.acceptanceVerdict.allHold = "no"), pointer: "/acceptanceVerdict/allHold" },
  { ref: "delegation@1", what: "lease without epoch", breakIt: (p) => delete p.lease.epoch, pointer: "/lease/epoch" },
  { ref: "delegation@1", what: "lease with extra field", breakIt: (p) => (p.lease.owner = "w"), pointer: "/lease/owner" },
  { ref: "lease@1", what: "unknown state", breakIt: (p) => (p.state = "granted"), pointer: "/state" },
  { ref: "lease@1", what: "fractional reserve", breakIt: (p) => (p.returnReserve = 0.15), pointer: "/returnReserve" },
  { ref: "lease@1", what: "missing expiry", breakIt: (p) => delete p.expiresAt, pointer: "/expiresAt" },
  { ref: "run@1", what: "status@2 status", breakIt: (p) => (p.status = "succeeded"), pointer: "/status" },
  { ref: "run@1", what: "invalid outcome", breakIt: (p) => (p.outcome.status = "success"), pointer: "/outcome/status" },
  { ref: "run@1", what: "unknown strategy", breakIt: (p) => (p.multitaskStrategy = "queue"), pointer: "/multitaskStrategy" },
  { ref: "run@1", what: "snake_case field", breakIt: (p) => (p.run_id = p.runId), pointer: "/run_id" },
];

describe("new contract payloads", () => {
  it.each(Object.entries(valid))("%s: a valid payload round-trips through JSON", (ref, payload) => {
    expect(validate(ref, payload)).toEqual({ valid: true, errors: [] });
    expect(validate(ref, JSON.parse(JSON.stringify(payload)))).toEqual({ valid: true, errors: [] });
  });

  it.each(cases.map((c) => [`${c.ref}: ${c.what}`, c] as const))("%s is rejected at its pointer", (_, c) => {
    const broken = structuredClone(valid[c.ref]!);
    c.breakIt(broken);
    const result = validate(c.ref, broken);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.pointer)).toContain(c.pointer);
  });

  it.each(Object.keys(valid))("%s is closed: an unknown top-level property is named", (ref) => {
    expect(validate(ref, { ...valid[ref], extra: 1 }).errors).toEqual([{ pointer: "/extra", message: "unknown property `extra`" }]);
  });

  it("accepts the minimal forms: optional fields absent", () => {
    expect(validate("status@1", { status: "max_turns_reached" }).valid).toBe(true);
    const { resultBrief, resultSha256, stopReasons, usage: _u, receiptVerdict: _r, acceptanceVerdict: _a, schemaValid, lease, ...entry } = valid["delegation@1"]!;
    expect(validate("delegation@1", { ...entry, status: "in_progress" })).toEqual({ valid: true, errors: [] });
    const { outcome, owner, leaseExpiresAt, ...run } = valid["run@1"]!;
    expect(validate("run@1", { ...run, status: "pending" })).toEqual({ valid: true, errors: [] });
  });

  it("subagent-return@1 accepts any JSON payload, including null, and a boolean schemaValid", () => {
    for (const payload of [null, "text", 3, [1, 2], { a: { b: true } }]) {
      expect(validate("subagent-return@1", { ...valid["subagent-return@1"], payload, schemaValid: true }).valid).toBe(true);
    }
  });

  it("delegation@1 reuses status@2's stop reason and the verdict schemas", () => {
    const schema = contractSchema("delegation@1") as Json;
    const status = contractSchema("status@2") as Json;
    const receiptVerdictSchema = contractSchema("receipt-verdict@1") as Json;
    expect(schema.properties.stopReasons.items).toEqual(status.properties.stopReasons.items);
    const { $schema, $id, title, ...plain } = receiptVerdictSchema;
    expect(schema.properties.receiptVerdict).toEqual(plain);
  });

  it("publishes status@1 without contract/version and subagent-return@1 with them", () => {
    expect(Object.keys((contractSchema("status@1") as Json).properties)).not.toContain("contract");
    const sr = contractSchema("subagent-return@1") as Json;
    expect(sr.properties.contract.const).toBe("subagent-return");
    expect(sr.properties.version.const).toBe(1);
    expect(sr.required).toEqual(expect.arrayContaining(["contract", "version", "payload", "completedSteps", "missingSteps", "schemaValid"]));
  });
});
