import { describe, expect, it } from "vitest";
import type { LeaseV1 } from "../../../contracts/lease/v1.js";
import { decideBatch, readLeasingOptions, spentTokens, type BatchCall } from "../../../plugins/batch-leasing/grants.js";

const defaults = readLeasingOptions({});
const calls = (n: number, prefix = "t"): BatchCall[] => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i + 1}`, subagentType: "general-purpose", description: "" }));
const noHistory = { runLeases: [], usedBy: () => undefined, childBudget: () => ({ limit: 1_000_000, returnReserve: 0.15 }) };

function lease(taskId: string, state: LeaseV1["state"], tokenAllowance = 500_000): LeaseV1 {
  return { leaseId: `l-${taskId}`, runId: "r", taskId, owner: `lead/${taskId}`, epoch: 1, tokenAllowance, returnReserve: 75_000, grantedAt: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-01T00:01:00.000Z", state };
}

describe("readLeasingOptions", () => {
  it("has the published defaults and clamps concurrency to 2–4 and total to 1–50", () => {
    expect(defaults).toEqual({ concurrency: 3, total: 6, budget: 3_000_000, minAllowance: 50_000, leaseTtlMs: 60_000, heartbeatMs: 10_000 });
    expect(readLeasingOptions({ concurrency: 9, total: 0 })).toMatchObject({ concurrency: 4, total: 1 });
    expect(readLeasingOptions({ concurrency: 0, total: 99 })).toMatchObject({ concurrency: 2, total: 50 });
    expect(readLeasingOptions({ concurrency: 2 })).toMatchObject({ concurrency: 2 });
  });

  it("a configured concurrency of 1 grants 2 calls of a batch", () => {
    const options = readLeasingOptions({ concurrency: 1 });
    expect(options.concurrency).toBe(2);
    const { decisions } = decideBatch({ ...noHistory, calls: calls(3) }, options);
    expect(decisions.map((d) => d.granted)).toEqual([true, true, false]);
    expect(decisions[2]).toMatchObject({ reason: "subagent_limit_capped", limit: { type: "subagents", value: 2 } });
  });
});

describe("decideBatch", () => {
  it("grants min(concurrency, …): five calls with concurrency 3 → three leases of min(1 M, 3 M / 6) = 500,000", () => {
    const { decisions, remaining } = decideBatch({ calls: calls(5), ...noHistory }, defaults);
    expect(decisions.map((d) => (d.granted ? d.allowance : d.reason))).toEqual([500_000, 500_000, 500_000, "subagent_limit_capped", "subagent_limit_capped"]);
    expect(decisions[0]).toMatchObject({ returnReserve: 75_000 });
    expect(decisions[3]).toMatchObject({ limit: { type: "subagents", value: 3 } });
    expect(remaining).toBe(1_500_000);
  });

  it("counts children already started in this run against the run total", () => {
    const runLeases = [lease("a", "released"), lease("b", "released"), lease("c", "released"), lease("d", "released"), lease("e", "active")];
    const { decisions } = decideBatch({ calls: calls(3), runLeases, usedBy: () => 10_000, childBudget: () => undefined }, defaults);
    expect(decisions.map((d) => d.granted)).toEqual([true, false, false]);
    expect(decisions[1]).toMatchObject({ reason: "subagent_limit_capped", limit: { type: "subagents", value: 6 }, detail: "this run may start at most 6 subagents, and 6 were started" });
  });

  it("returns what ended children did not use to the shared budget, and refuses with budget_exceeded below minAllowance", () => {
    const options = { ...defaults, budget: 1_000_000, total: 10 };
    const spentBy = [lease("a", "released", 400_000), lease("b", "active", 400_000)];
    // a used 50,000 of its 400,000; b still holds its whole allowance.
    expect(spentTokens({ runLeases: spentBy, usedBy: () => 50_000 })).toBe(450_000);
    const { decisions } = decideBatch({ calls: calls(3), runLeases: spentBy, usedBy: () => 50_000, childBudget: () => ({ limit: 1_000_000, returnReserve: 0.1 }) }, options);
    // share = 1 M / 10 = 100,000 per call; 550,000 remain.
    expect(decisions.map((d) => (d.granted ? [d.allowance, d.returnReserve] : d.reason))).toEqual([[100_000, 10_000], [100_000, 10_000], [100_000, 10_000]]);

    const poor = decideBatch({ calls: calls(2), runLeases: [lease("a", "active", 980_000)], usedBy: () => undefined, childBudget: () => undefined }, options);
    expect(poor.decisions[0]).toMatchObject({
      granted: false,
      reason: "budget_exceeded",
      limit: { type: "tokens", value: 1_000_000 },
      detail: "the shared subagent budget of 1000000 tokens has 20000 left, below the minimum allowance of 50000",
    });
  });

  it("gives every allowance at least minAllowance and at most what remains", () => {
    const small = decideBatch({ calls: calls(2), runLeases: [], usedBy: () => undefined, childBudget: () => ({ limit: 10_000, returnReserve: 0.15 }) }, defaults);
    expect(small.decisions.map((d) => d.granted && d.allowance)).toEqual([50_000, 50_000]);
    const tight = decideBatch({ calls: calls(2), runLeases: [], usedBy: () => undefined, childBudget: () => undefined }, { ...defaults, budget: 120_000, total: 1 });
    expect(tight.decisions.map((d) => (d.granted ? d.allowance : d.reason))).toEqual([120_000, "subagent_limit_capped"]);
  });
});
