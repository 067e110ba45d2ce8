import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import { createChildRunner } from "../../kernel/loop/children.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import type { RunRecord } from "../../kernel/runs/types.js";
import { loadRunModels } from "../../tools/serve/run-models.js";
import { createServeExecutor } from "../../tools/serve/serve-executor.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { RunReport } from "../../tools/scenario/run-report.js";
import { builtinStackPath, loadStack } from "../../tools/stacks/load-stack.js";
import { composeSubagentStack, SUBAGENT_TOKEN_LIMIT } from "../../tools/stacks/subagent-stack.js";

/**
 * The subagent token ceiling follows the subagent stack: 1,000,000 when it has
 * summarization (the child compacts its context), 2,000,000 when it has not. It is derived
 * when the stack is built, never written as a number in subagent.json, and a configured
 * limit (stack entry, config layer, lease allowance) still wins.
 */
const limitOf = (stack: StackV1 | Parameters<typeof composeSubagentStack>[0], plugins: Parameters<typeof composeSubagentStack>[1]["plugins"], config: Array<Record<string, Record<string, unknown>>> = []) =>
  composeSubagentStack(stack, { plugins, config }).plugins.get("token-budget")!.config.limit;

const withoutSummarization = (stack: StackV1): StackV1 => ({ ...stack, name: "subagent-no-summary", plugins: stack.plugins.filter((p) => p !== "summarization") });

describe("subagent token ceiling: derived when the stack is built", () => {
  it("subagent.json writes no token-budget limit", () => {
    const json = JSON.parse(readFileSync(builtinStackPath("subagent"), "utf8")) as StackV1;
    const entry = json.plugins.find((p) => (typeof p === "string" ? p : "name" in p ? p.name : "") === "token-budget");
    expect(entry).toBe("token-budget");
    expect(json.plugins).toContain("summarization");
  });

  it("1,000,000 with summarization in the composed subagent stack, 2,000,000 without", async () => {
    const sub = await loadStack("subagent");
    expect(limitOf(sub.stack, sub.plugins)).toBe(1_000_000);
    expect(limitOf(withoutSummarization(sub.stack as StackV1), sub.plugins)).toBe(2_000_000);
    expect(SUBAGENT_TOKEN_LIMIT).toEqual({ withSummarization: 1_000_000, withoutSummarization: 2_000_000 });
  });

  it("an explicit limit wins: on the stack entry, in a config layer, or as a lease's allowance", async () => {
    const sub = await loadStack("subagent");
    const entry: StackV1 = { ...(sub.stack as StackV1), plugins: sub.stack.plugins.map((p) => (p === "token-budget" ? { name: "token-budget", config: { limit: 300_000 } } : p)) as StackV1["plugins"] };
    expect(limitOf(entry, sub.plugins)).toBe(300_000);
    expect(limitOf(sub.stack, sub.plugins, [{ "token-budget": { limit: 400_000 } }])).toBe(400_000);
    expect(limitOf(withoutSummarization(sub.stack as StackV1), sub.plugins, [{ "token-budget": { warnAt: 0.5 } }, { "token-budget": { limit: 60_000 } }])).toBe(60_000);
    // Other token-budget options in a layer do not count as a limit: the derived one still applies.
    expect(limitOf(withoutSummarization(sub.stack as StackV1), sub.plugins, [{ "token-budget": { warnAt: 0.5 } }])).toBe(2_000_000);
  });

  it("the child runner reports the derived limit to batch-leasing (agents port)", async () => {
    const sub = await loadStack("subagent");
    const stack = withoutSummarization(sub.stack as StackV1);
    const agents = createChildRunner({
      composeChild: (layers) => composeSubagentStack(stack, { plugins: sub.plugins, config: layers }),
      modelFor: () => {
        throw new Error("no child runs here");
      },
      types: ["general-purpose"],
    });
    expect(agents.tokenBudget("general-purpose")).toEqual({ limit: 2_000_000, returnReserve: 0.15 });
  });
});

/** One child that uses 1,500,000 tokens in its only call: above 85 % of 1 M, below 85 % of 2 M. */
function scenario(subagentStack: StackV1): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name: `token ceiling: ${subagentStack.name}`,
    stack: { contract: "stack", version: 1, name: "lead-ceiling", plugins: ["workspace", "subagents"], subagentStack } as StackV1,
    input: "Delegate one big read.",
    agents: {
      lead: { turns: [{ toolCalls: [{ name: "task", id: "t1", args: { description: "big read", prompt: "Read everything.", subagentType: "general-purpose" } }] }, { content: "Done." }] },
      "general-purpose": {
        turns: [
          {
            usage: { input_tokens: 1_500_000, output_tokens: 100 },
            toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "Read it all.", completedSteps: ["read"], missingSteps: [] } }],
          },
        ],
      },
    },
  } as ScenarioV1;
}

const child = (report: RunReport) => report.delegations[0] as { status: string; stopReasons?: Array<{ reason: string; limit?: { value: number } }> };

describe("subagent token ceiling in a run", () => {
  const small = (plugins: string[]): StackV1 => ({ contract: "stack", version: 1, name: plugins.join("+"), plugins });

  it("a child with summarization is capped at 1,000,000 (token_capped at 85 %)", async () => {
    const report = await runScenario(scenario(small(["workspace", "summarization", "token-budget"])));
    expect(child(report).stopReasons).toEqual([expect.objectContaining({ reason: "token_capped", limit: { type: "tokens", value: 1_000_000 } })]);
  });

  it("the same child without summarization has 2,000,000: no cap", async () => {
    const report = await runScenario(scenario(small(["workspace", "token-budget"])));
    expect(child(report).status).toBe("succeeded");
    expect(child(report).stopReasons ?? []).toEqual([]);
  });
});

describe("subagent token ceiling behind keel serve", () => {
  async function serveChild(subPlugins: string[]) {
    const dir = mkdtempSync(join(tmpdir(), "keel-ceiling-"));
    try {
      const sub: StackV1 = { contract: "stack", version: 1, name: "sub", plugins: subPlugins };
      const s = scenario(sub);
      writeFileSync(join(dir, "lead.json"), JSON.stringify(s.stack));
      writeFileSync(join(dir, "scenario.json"), JSON.stringify({ ...s, stack: "lead" }));
      const stackPath = join(dir, "lead.json");
      const executor = await createServeExecutor({
        stacks: [stackPath],
        models: await loadRunModels({ kind: "scripted", file: join(dir, "scenario.json") }),
        checkpointer: new MemorySaver(),
        store: new MemoryRunStore(),
        workspaceRoot: join(dir, "ws"),
        bash: "off",
        maxTurns: 10,
      });
      const run = { runId: "run-1", threadId: "thread-1", assistantId: stackPath, request: { assistantId: stackPath, input: "Delegate one big read." } } as unknown as RunRecord;
      const result = await executor.execute(run, { signal: new AbortController().signal, emit: () => {}, journal: () => {} });
      return child(result.report as RunReport);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("derives the same ceilings: token_capped at 1,000,000 with summarization, none at 2,000,000 without", async () => {
    expect((await serveChild(["workspace", "summarization", "token-budget"])).stopReasons).toEqual([
      expect.objectContaining({ reason: "token_capped", limit: { type: "tokens", value: 1_000_000 } }),
    ]);
    const without = await serveChild(["workspace", "token-budget"]);
    expect(without.status).toBe("succeeded");
    expect(without.stopReasons ?? []).toEqual([]);
  });
});
