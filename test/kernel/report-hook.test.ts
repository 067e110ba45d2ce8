import { describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { compose } from "../../kernel/compose/index.js";
import type { Composition } from "../../kernel/compose/types.js";
import type { RunResult } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { ReportContext } from "../../kernel/plugin/types.js";
import { buildRunReport, withChildren } from "../../kernel/report/run-report.js";
import type { ChildAgentResult } from "../../kernel/ports/agents.js";

const SHA = "a".repeat(64);
const seen: ReportContext[] = [];

/** A third-party plugin that reports its own ledger channel as evidence. */
const tickets = definePlugin({
  manifest: {
    name: "tickets",
    version: "1.0.0",
    kind: "middleware",
    kernel: ">=0.1.0",
    description: "a ticket ledger",
    hooks: {},
    channels: { ticketLedger: { schema: { type: "array" }, reducer: "append" } },
    config: { type: "object", properties: { tag: { type: "string", default: "T" } } },
  },
  report: (ctx) => {
    seen.push(ctx);
    const ledger = (ctx.values.ticketLedger as Array<{ id: string }> | undefined) ?? [];
    return {
      receipts: ledger.map((t) => ({ id: `${ctx.config.tag}-${t.id}` })),
      delegations: ctx.agent === "lead" ? [{ id: "d1", from: "tickets" }] : [],
      workspaceFiles: { "tickets.md": { bytes: ledger.length, sha256: SHA } },
    };
  },
});

const second = definePlugin({
  manifest: { name: "second", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "second reporter", hooks: {} },
  report: () => ({ receipts: [{ id: "second" }] }),
});

const result = (values: Record<string, unknown>): RunResult => ({
  outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "ok" },
  messages: [],
  values,
  turns: 1,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
});

const reportOf = (composition: Composition, values: Record<string, unknown>) =>
  buildRunReport({ scenario: "s", threadId: "t-1", runId: "r-1", result: result(values), events: [], journal: [], modelRequests: [], compositions: { lead: composition } });

describe("the report hook", () => {
  it("a plugin's `report` builds its sections of the run report from the agent's values and its options", () => {
    seen.length = 0;
    const composition = compose({ name: "lead", plugins: [{ plugin: tickets, config: { tag: "X" } }] });
    const report = reportOf(composition, { ticketLedger: [{ id: "1" }, { id: "2" }] });
    expect(report.receipts).toEqual({ lead: [{ id: "X-1" }, { id: "X-2" }] });
    expect(report.delegations).toEqual([{ id: "d1", from: "tickets" }]);
    expect(report.workspace).toEqual({ files: { "tickets.md": { bytes: 2, sha256: SHA } } });
    expect(seen.map((c) => [c.agent, c.threadId, c.config.tag])).toEqual([["lead", "t-1", "X"]]);
    expect(validate("run-report@2", report).errors ?? []).toEqual([]);
  });

  it("contributions are merged in composed order", () => {
    const composition = compose({ name: "lead", plugins: [second, tickets], order: [["second", "tickets"]] });
    expect(reportOf(composition, { ticketLedger: [{ id: "1" }] }).receipts.lead).toEqual([{ id: "second" }, { id: "T-1" }]);
  });

  it("the kernel reads no channel itself: without a report hook the sections are empty, whatever the values hold", () => {
    const report = reportOf(compose({ name: "bare", plugins: [] }), { receipts: [{ id: "r1" }], delegations: [{ id: "d" }] });
    expect(report.receipts).toEqual({ lead: [] });
    expect(report.delegations).toEqual([]);
    expect(report.workspace).toEqual({ files: {} });
  });

  it("children's receipts come from the subagent stack's hooks, per agent path", () => {
    seen.length = 0;
    const lead = reportOf(compose({ name: "lead", plugins: [] }), {});
    const child = { values: { ticketLedger: [{ id: "c" }] } } as unknown as ChildAgentResult;
    const report = withChildren(lead, [], new Map([["lead/call_1", child]]), compose({ name: "subagent", plugins: [tickets] }));
    expect(report.receipts).toEqual({ lead: [], "lead/call_1": [{ id: "T-c" }] });
    expect(report.delegations).toEqual([]);
    expect(seen.map((c) => c.agent)).toEqual(["lead/call_1"]);
  });

  it("a `report` that is not a function is refused", () => {
    expect(() => definePlugin({ manifest: { ...second.manifest, name: "bad" }, report: "yes" as never })).toThrow(expect.objectContaining({ code: "KEEL_ERR_MANIFEST_HOOKS", pointer: "/report" }));
  });
});
