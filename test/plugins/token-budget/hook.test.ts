import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import type { CompositionError } from "../../../kernel/errors.js";
import { messageText } from "../../../kernel/loop/message-meta.js";
import type { StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import type { ScriptedTurn } from "../../../tools/testing/scripted-model.js";
import { echoTools, pluginRuntime } from "../plugin-runtime.js";
import tokenBudget from "../../../plugins/token-budget/index.js";

function runtimeWith(config: Record<string, unknown>, turns: ScriptedTurn[]) {
  return pluginRuntime(tokenBudget, config, turns, ["echo"]);
}

const spend = (tokens: number, tool = true): ScriptedTurn => ({
  ...(tool ? { toolCalls: [{ name: "echo", args: { n: tokens } }] } : { content: "Answer." }),
  usage: { input_tokens: tokens, output_tokens: 0 },
});
const guards = (events: StreamEventRecord[]) => events.filter((e) => e.event === "guard").map((e) => (e.data as { action: string }).action);

describe("token-budget hooks in a real runtime", () => {
  it("baselines the messages of an earlier run of the thread", async () => {
    const { run, events } = runtimeWith({ limit: 10000 }, [spend(3000), spend(3000, false), spend(3000), spend(3000, false)]);
    const first = await run("r1", "one");
    const second = await run("r2", "two");

    expect(first.outcome.status).toBe("succeeded");
    // Counted across runs, the second run would be at 12,000 of 10,000 and capped.
    expect(second.outcome.status).toBe("succeeded");
    expect(second.outcome.stopReasons).toEqual([]);
    expect(second.values.budget).toMatchObject({ runId: "r2", totalTokens: 6000, counted: [expect.any(String), expect.any(String)] });
    expect(guards(events)).toEqual([]);
  });

  it("injects the warning only into the request right after the crossing, at the end", async () => {
    const { run, requests } = runtimeWith({ limit: 10000 }, [spend(4000), spend(3000), spend(1000), spend(100, false)]);
    const result = await run("r1", "go");

    expect(result.outcome.status).toBe("succeeded");
    const warned = requests.map((r) => r.messages.filter((m) => messageText(m).startsWith("[TOKEN BUDGET WARNING]")).length);
    expect(warned).toEqual([0, 0, 1, 0]);
    const third = requests[2]!.messages;
    expect(third.at(-1)!.getType()).toBe("human");
    expect(third.at(-2)!.getType()).toBe("tool");
    expect(messageText(third.at(-1)!)).toContain("used 7000 of 10000 tokens (70%)");
  });

  it("counts the forced final answer without judging it", async () => {
    const { run, events } = runtimeWith({ limit: 1000 }, [spend(900), spend(5000, false)]);
    const result = await run("r1", "go");
    expect(result.outcome.status).toBe("partial");
    expect(result.outcome.stopReasons.map((r) => r.reason)).toEqual(["token_capped"]);
    expect(result.values.budget).toMatchObject({ totalTokens: 5900, warnedTurn: 1, cappedTurn: 1 });
    expect(guards(events)).toEqual(["warn", "stop"]);
  });

  it("does nothing when disabled", async () => {
    const { run, events } = runtimeWith({ limit: 1000, enabled: false }, [spend(5000), spend(5000, false)]);
    const result = await run("r1", "go");
    expect(result.outcome.status).toBe("succeeded");
    expect(result.values.budget).toBeUndefined();
    expect(guards(events)).toEqual([]);
  });

  it("rejects options outside their ranges", () => {
    const problems = (config: Record<string, unknown>) => {
      try {
        compose({ name: "t", plugins: [echoTools("echo"), tokenBudget] }, { config: [{ "token-budget": config }] });
        return [];
      } catch (error) {
        return (error as CompositionError).problems.map((p) => [p.code, p.plugins]);
      }
    };
    expect(problems({ limit: 1, warnAt: 1, returnReserve: 0 })).toEqual([]);
    for (const bad of [{ limit: 0 }, { limit: 1.5 }, { warnAt: 0 }, { warnAt: 1.5 }, { returnReserve: 1 }, { returnReserve: -0.1 }, { budget: 5 }]) {
      expect(problems(bad)).toEqual([["KEEL_ERR_CONFIG_INVALID", ["token-budget"]]]);
    }
  });
});
