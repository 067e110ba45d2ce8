import { describe, expect, it } from "vitest";
import type { DelegationV1 } from "../../contracts/delegation/v1.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import durableContext, { AUTHORITY_CONTRACT, DATA_CLOSE, DATA_OPEN, GUIDANCE, LEDGER_HEADING, LEDGER_TITLE } from "../../plugins/durable-context/index.js";
import messageCoalescing from "../../plugins/message-coalescing/index.js";
import { LEDGER_HEADER } from "../../plugins/receipts/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/**
 * Incident: after compaction a lead no longer saw what it had delegated and started nine
 * redundant subagents. The delegation ledger lives in a channel (compaction cannot touch
 * it) and durable-context shows it in every request. A stub stands in for `subagents`:
 * it owns `delegations` (delegation@1, merge by id) and writes entries in beforeAgent.
 */
function ledgerOwner(entries: DelegationV1[]): Plugin {
  return definePlugin({
    manifest: {
      name: "delegations-stub",
      version: "0.1.0",
      kind: "middleware",
      kernel: ">=0.1.0 <1",
      description: "test: owns the delegation ledger like the subagents plugin",
      channels: {
        delegations: {
          schema: { type: "array" },
          reducer: { kind: "merge-by-id", key: "id", guard: "no-terminal-downgrade", keepNewest: 50 },
          contract: "delegation@1",
        },
      },
      hooks: { beforeAgent: { mutates: ["delegations"] } },
      config: { type: "object", additionalProperties: false },
    },
    hooks: { beforeAgent: () => ({ delegations: entries }) },
  });
}

const entry = (n: number, patch: Partial<DelegationV1> = {}): DelegationV1 => ({
  id: `call_task_${n}`,
  runId: "run-earlier",
  description: `Research topic ${n}`,
  subagentType: "general-purpose",
  status: "succeeded",
  resultBrief: `Findings for topic ${n}.`,
  createdAt: `2026-01-01T00:${String(n).padStart(2, "0")}:00.000Z`,
  ...patch,
});

function scenario(name: string, config: ScenarioV1["config"] = {}, stackPlugins: ScenarioV1["stack"] = { name: "t", plugins: ["workspace"] }): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name,
    stack: stackPlugins,
    input: "Research the three topics.",
    config,
    workspace: { files: { "notes.md": "notes\n" } },
    agents: { lead: { turns: [{ toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] }, { content: "Done." }] } },
  };
}

describe("context: the delegation ledger in every request", () => {
  it("shows the ledger newest first with guidance in a hidden data message after the system message", async () => {
    const entries = [
      entry(1, { status: "succeeded", resultBrief: "Topic 1: three sources found.\nAll cited with [r2 read_file]." }),
      entry(2, { status: "in_progress", resultBrief: undefined }),
      entry(3, { status: "failed", resultBrief: undefined, stopReasons: [{ reason: "subagent_limit_capped", by: "batch-leasing", limit: { type: "subagents", value: 6 } }] }),
    ].map((e) => JSON.parse(JSON.stringify(e)) as DelegationV1);
    const report = await runScenario(scenario("context-ledger"), { plugins: [ledgerOwner(entries), durableContext, messageCoalescing] });

    expect(report.outcome.status).toBe("succeeded");
    for (const request of report.modelRequests) {
      const [system, data, user] = request.messages;
      expect(system!.role).toBe("system");
      expect(system!.content).toBe(AUTHORITY_CONTRACT);
      expect([data!.role, data!.hidden]).toEqual(["user", true]);
      expect(data!.content.split("\n")).toEqual([
        DATA_OPEN,
        ...LEDGER_HEADING.split("\n"),
        `- [failed] Research topic 3 (via general-purpose; ${GUIDANCE.failed}) -> stopped: subagent_limit_capped`,
        `- [in_progress] Research topic 2 (via general-purpose; already delegated; do NOT delegate again; wait for or build on the result)`,
        `- [succeeded] Research topic 1 (via general-purpose; reuse this result) -> Topic 1: three sources found. All cited with [r2 read_file].`,
        DATA_CLOSE,
      ]);
      expect([user!.role, user!.hidden, user!.content]).toEqual(["user", false, "Research the three topics."]);
    }
    // Projected, never persisted.
    expect(report.messages.some((m) => m.content.includes(LEDGER_TITLE))).toBe(false);
    expect(report.messages[0]!.role).toBe("user");
  });

  it("keeps the newest entries within ledgerChars and counts the older ones", async () => {
    const entries = Array.from({ length: 40 }, (_, i) => entry(i + 1, { resultBrief: `Result ${i + 1}: ${"detail ".repeat(30)}` }));
    const report = await runScenario(scenario("context-ledger-budget", { "durable-context": { ledgerChars: 1500, briefChars: 60 } }), {
      plugins: [ledgerOwner(entries), durableContext],
    });

    const data = report.modelRequests[0]!.messages[1]!.content;
    const section = data.slice(data.indexOf(LEDGER_TITLE), data.indexOf(`\n${DATA_CLOSE}`));
    expect(section.length).toBeLessThanOrEqual(1500);
    const lines = section.split("\n");
    const shown = lines.filter((l) => l.startsWith("- [succeeded]"));
    expect(shown[0]).toContain("Research topic 40 ");
    expect(shown.map((l) => Number(/topic (\d+)/.exec(l)![1]))).toEqual(Array.from({ length: shown.length }, (_, i) => 40 - i));
    expect(lines.at(-1)).toBe(`- ${40 - shown.length} older delegation entries omitted`);
    for (const line of shown) expect(line.split(" -> ")[1]!.length).toBeLessThanOrEqual(60);
  });

  it("orders system → durable data → receipt ledger → conversation when composed with receipts", async () => {
    const report = await runScenario(
      scenario("context-ledger-with-receipts", {}, { name: "t", plugins: ["workspace", { name: "receipts", config: { render: "always" } }] }),
      { plugins: [ledgerOwner([entry(1)]), durableContext, messageCoalescing] },
    );

    expect(report.composition.lead.indexOf("receipts")).toBeLessThan(report.composition.lead.indexOf("durable-context"));
    const second = report.modelRequests[1]!.messages;
    expect(second.map((m) => `${m.role}${m.hidden ? "(hidden)" : ""}`)).toEqual(["system", "user(hidden)", "user(hidden)", "user", "assistant", "tool"]);
    expect(second[1]!.content.startsWith(`${DATA_OPEN}\n${LEDGER_TITLE}`)).toBe(true);
    expect(second[2]!.content.startsWith(LEDGER_HEADER)).toBe(true);
    expect(second[3]!.content).toBe("Research the three topics.");
  });
});
