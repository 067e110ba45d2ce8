import { AIMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { setKeelMeta } from "../../../kernel/loop/message-meta.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { ReceiptsPort } from "../../../kernel/ports/agents.js";
import { receiptsPlugin, type Receipt } from "../../../plugins/receipts/index.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../tools/testing/scripted-model.js";

const tools = definePlugin({
  manifest: { name: "test-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "test tools", hooks: {}, config: { type: "object" } },
  tools: [
    { name: "echo", description: "echo", schema: { type: "object" }, invoke: (args) => `echo ${JSON.stringify(args)} ${"x".repeat(500)}` },
    { name: "fail", description: "error result", schema: { type: "object" }, invoke: () => ({ content: "it failed", status: "error" }) },
  ],
});

/** Records how many receipts state holds before every model call. */
function probe(sizes: number[]) {
  return definePlugin({
    manifest: { name: "probe", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "measures", hooks: { beforeModel: { observes: ["receipts"] } } },
    hooks: { beforeModel: (state) => void sizes.push((state.receipts as unknown[]).length) },
  });
}

/** `calls` tool calls (r2 fails), the last ten two per step (parallel), then `report`. */
function script(calls: number, report: string): ScriptedTurn[] {
  const out: ScriptedTurn[] = [];
  const single = calls - 10;
  for (let i = 1; i <= single; i++) out.push({ toolCalls: [{ id: `c${i}`, name: i === 2 ? "fail" : "echo", args: { i } }] });
  for (let i = single + 1; i <= calls; i += 2) out.push({ toolCalls: [{ id: `c${i}`, name: "echo", args: { i } }, { id: `c${i + 1}`, name: "echo", args: { i: i + 1 } }] });
  out.push({ content: report });
  return out;
}

function setup(keepInState: number, turns: ScriptedTurn[]) {
  const sizes: number[] = [];
  const composition = compose({ name: "t", plugins: [{ plugin: receiptsPlugin, config: { keepInState } }, tools, probe(sizes)] });
  const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: { turns } }), maxTurns: 200, systemPrompt: "test", checkpointer: new MemorySaver() });
  const port = receiptsPlugin.services!.receipts!(composition.plugins.get("receipts")!.config) as ReceiptsPort;
  return { runtime, sizes, port };
}

const CALLS = 60;
const KEEP = 5;
const REPORT = "Wrote it [r1 echo], checked [r2 fail], and more [r60 echo] [r61 echo].";

describe("receipts: bounded state in a long run", () => {
  it("keeps the newest `keepInState` receipts at every step, counts every one, and still verifies an early receipt id", async () => {
    const { runtime, sizes, port } = setup(KEEP, script(CALLS, REPORT));
    const result = await runtime.run({ threadId: "t1", runId: "run-1", input: "go" });
    const values = result.values;
    const kept = values.receipts as Receipt[];
    expect(sizes).toHaveLength(56);
    expect(Math.max(...sizes)).toBe(KEEP);
    expect(kept.map((r) => r.id)).toEqual(["r56", "r57", "r58", "r59", "r60"]);
    expect(values.receiptCounts).toEqual({ total: CALLS, success: CALLS - 1, error: 1 });
    const index = values.receiptIndex as string[];
    expect(index).toHaveLength(CALLS);
    expect(index.slice(0, 3)).toEqual(["r1 echo", "r2 fail error", "r3 echo"]);
    // The index does not grow with the payload (each call's output is over 500 bytes): a few bytes per receipt.
    expect(JSON.stringify(index).length / CALLS).toBeLessThan(12);

    // A child's report without stamped ids is checked against the whole run: r1 and r2 fell out of state long ago.
    const report = new AIMessage(REPORT);
    const ledger = port.shownReceipts(values, report);
    expect(ledger).toHaveLength(CALLS);
    const verdict = port.checkCitations(REPORT, ledger);
    expect(verdict.resolved).toEqual(["r1", "r60"]);
    expect(verdict.failed).toEqual([{ id: "r2", reason: "receipt status=error" }]);
    expect(verdict.unknown).toEqual(["r61"]);

    // A message stamped with the ids of its ledger is checked against exactly those, kept or not.
    const stamped = setKeelMeta(new AIMessage("Did [r1 echo] and [r59 echo] and [r5 echo]."), { receiptIds: ["r1", "r59"] }) as AIMessage;
    const shown = port.shownReceipts(values, stamped);
    expect(shown.map((r) => (r as Receipt).id)).toEqual(["r1", "r59"]);
    expect(shown[1]).toEqual(kept.find((r) => r.id === "r59")); // a kept receipt whole
    expect(port.checkCitations(String(stamped.content), shown)).toMatchObject({ resolved: ["r1", "r59"], unknown: ["r5"] });
  });

  it("a second run on the thread numbers from r1 again, starts at the thread's count, and resolves only its own receipts", async () => {
    const { runtime, port } = setup(KEEP, [...script(12, "First."), { toolCalls: [{ id: "d1", name: "echo", args: { again: 1 } }] }, { content: "Second [r1 echo] [r2 echo]." }]);
    await runtime.run({ threadId: "t1", runId: "run-1", input: "go" });
    const second = await runtime.run({ threadId: "t1", runId: "run-2", input: "again" });
    const values = second.values;
    expect(values.receiptRun).toEqual({ runId: "run-2", agent: "lead", start: 12, delegationsAtStart: 0 });
    expect((values.receipts as Receipt[]).map((r) => `${r.id}:${r.toolCallId}`)).toEqual(["r9:c9", "r10:c10", "r11:c11", "r12:c12", "r1:d1"]);
    const verdict = port.checkCitations("Second [r1 echo] [r2 echo].", port.shownReceipts(values, new AIMessage("x")));
    expect(verdict.resolved).toEqual(["r1"]);
    expect(verdict.unknown).toEqual(["r2"]); // run-1's r2 is not this run's
  });
});
