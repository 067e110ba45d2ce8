import { describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import { compose } from "../../../kernel/compose/index.js";
import { createChildRunner } from "../../../kernel/loop/children.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../../tools/testing/scripted-model.js";
import batchLeasing from "../../../plugins/batch-leasing/index.js";
import subagents from "../../../plugins/subagents/index.js";

const task = (id: string) => ({ name: "task", id, args: { description: id, prompt: "p", subagentType: "general-purpose" } });
const child: ScriptedAgent = { turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "ok" } }] }] };

function runtimeFor(lead: ScriptedAgent, config: Record<string, unknown> = {}) {
  const agents = createChildRunner({
    composeChild: () => compose({ name: "sub", plugins: [] }),
    modelFor: (agentPath, type) => new ScriptedChatModel({ script: child, agentPath, agentType: type }),
    types: ["general-purpose"],
  });
  const composition = compose({ name: "t", plugins: [subagents, batchLeasing] }, { config: [{ "batch-leasing": config }] });
  return createAgentRuntime(composition, { model: new ScriptedChatModel({ script: lead }), ports: { agents } });
}

type Lease = { taskId: string; runId: string; state: string; tokenAllowance: number; returnReserve: number; owner: string; epoch: number };

describe("batch-leasing hooks in a real runtime", () => {
  it("grants lease@1 per granted call, and releases it when the child ends", async () => {
    const runtime = runtimeFor({ turns: [{ toolCalls: [task("t1"), task("t2")] }, { content: "done" }] });
    const result = await runtime.run({ threadId: "th", runId: "r1", input: "go" });
    const leases = result.values.leases as Lease[];
    for (const lease of leases) expect(validate("lease@1", lease)).toEqual({ valid: true, errors: [] });
    // No subagent stack token-budget here: the allowance is the budget share, 3 M / 6.
    expect(leases.map((l) => [l.taskId, l.runId, l.owner, l.epoch, l.tokenAllowance, l.returnReserve, l.state])).toEqual([
      ["t1", "r1", "lead/t1", 1, 500_000, 75_000, "released"],
      ["t2", "r1", "lead/t2", 1, 500_000, 75_000, "released"],
    ]);
    expect(result.values.leaseBatch).toEqual({ runId: "r1", turn: 1, granted: ["t1", "t2"], refused: [] });
  });

  it("counts the run total across batches of one run, not across runs", async () => {
    const runtime = runtimeFor(
      { turns: [{ toolCalls: [task("a")] }, { toolCalls: [task("b")] }, { content: "first run done" }, { toolCalls: [task("c")] }, { content: "second run done" }] },
      { total: 1 },
    );
    const first = await runtime.run({ threadId: "th", runId: "r1", input: "go" });
    expect((first.values.delegations as Array<{ id: string; status: string }>).map((d) => [d.id, d.status])).toEqual([["a", "succeeded"], ["b", "failed"]]);
    expect(first.outcome.stopReasons.map((r) => r.reason)).toEqual(["subagent_limit_capped"]);
    const second = await runtime.run({ threadId: "th", runId: "r2", input: "again" });
    expect((second.values.delegations as Array<{ id: string; status: string }>).map((d) => [d.id, d.status])).toEqual([
      ["a", "succeeded"],
      ["b", "failed"],
      ["c", "succeeded"],
    ]);
  });
});
