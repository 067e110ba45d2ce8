import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isHidden, messageText } from "../../../kernel/loop/message-meta.js";
import type { ModelRequestRecord, StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import type { ChannelUpdate, HookContext, ModelRequest } from "../../../kernel/plugin/types.js";
import type { ScriptedTurn } from "../../../kernel/testing/scripted-model.js";
import { pluginRuntime } from "../plugin-runtime.js";
import loopDetection, { freshLoopState } from "../../../plugins/loop-detection/index.js";

function runtimeWith(config: Record<string, unknown>, turns: ScriptedTurn[]) {
  return pluginRuntime(loopDetection, config, turns, ["echo", "probe"]);
}

const call = (name: string, args: Record<string, unknown>) => ({ name, args });
const warningsIn = (r: ModelRequestRecord) => r.messages.filter((m) => messageText(m).startsWith("[LOOP WARNING]"));
const guards = (events: StreamEventRecord[]) => events.filter((e) => e.event === "guard").map((e) => e.data as { action: string; detail: string });

describe("loop-detection hooks in a real runtime", () => {
  it("injects the warning after the tool results of a parallel call, as the last message", async () => {
    const pair = { toolCalls: [call("echo", { query: "a" }), call("probe", { query: "b" })] };
    const { run, requests } = runtimeWith({}, [pair, pair, pair, { content: "Done." }]);
    const result = await run("r1", "go");

    expect(result.outcome.status).toBe("succeeded");
    expect(requests).toHaveLength(4);
    const req = requests[3]!.messages;
    expect(req.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "ai", "tool", "tool", "ai", "tool", "tool", "human"]);
    expect(isHidden(req[10]!)).toBe(true);
    expect(messageText(req[10]!)).toContain('echo:{"query":"a"}, probe:{"query":"b"}');
    expect(requests.slice(0, 3).every((r) => warningsIn(r).length === 0)).toBe(true);
    // The injected message never reaches the thread.
    expect(result.messages.some((m) => HumanMessage.isInstance(m) && isHidden(m))).toBe(false);
    expect(result.values.loop).toMatchObject({ runId: "r1", agent: "lead", pending: [] });
  });

  it("stops on one tool's frequency with per-tool overrides from the config", async () => {
    const turns = [1, 2, 3].map((n) => ({ toolCalls: [call("echo", { query: `q${n}` })] }));
    const { run, events, requests } = runtimeWith({ perTool: { echo: { warnAt: 2, hardLimit: 3 } } }, [...turns, { content: "Summary." }]);
    const result = await run("r1", "go");

    expect(result.outcome.status).toBe("partial");
    expect(result.outcome.stopReasons).toEqual([
      { reason: "loop_capped", by: "loop-detection", turn: 3, detail: "tool `echo` called 3 times in this run (limit 3)", limit: { type: "calls", value: 3 } },
    ]);
    expect(guards(events).map((g) => g.action)).toEqual(["warn", "stop"]);
    // Warned after call 2 (request 3), stopped at call 3 (its call stripped), then the forced final answer.
    expect(requests.map((r) => warningsIn(r).length)).toEqual([0, 0, 1, 0]);
    expect(requests[3]!.tools).toEqual([]);
    expect(result.messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(2);
  });

  it("tracks each run of a thread separately", async () => {
    const same = { toolCalls: [call("echo", { query: "same" })] };
    const { run, events } = runtimeWith({ hardLimit: 4 }, [same, same, same, { content: "First." }, same, same, same, { content: "Second." }]);
    const first = await run("r1", "go");
    const second = await run("r2", "again");

    expect(first.outcome.status).toBe("succeeded");
    // Carried over, the 2nd run's first call would be the 4th repeat (hardLimit 4).
    expect(second.outcome.status).toBe("succeeded");
    expect(second.outcome.text).toBe("Second.");
    expect(guards(events).map((g) => g.action)).toEqual(["warn", "warn"]);
    expect(second.values.loop).toMatchObject({ runId: "r2", warnedHashes: [expect.any(String)] });
  });
});

describe("loop-detection wrapModelCall", () => {
  const wrap = loopDetection.hooks.wrapModelCall!;

  function invoke(loop: unknown, forced: boolean) {
    const updates: ChannelUpdate[] = [];
    const ctx = { runId: "r1", agent: "lead", update: (u: ChannelUpdate) => updates.push(u) } as unknown as HookContext;
    const request: ModelRequest = { messages: [new HumanMessage("hi")], tools: [], state: { loop }, forced };
    let sent: ModelRequest | undefined;
    const next = async (r: ModelRequest) => {
      sent = r;
      return new AIMessage("ok");
    };
    return { run: () => wrap(request, next, ctx), updates, sent: () => sent! };
  }

  it("ignores warnings left by another run", async () => {
    const hook = invoke({ ...freshLoopState("r0", "lead"), pending: ["[LOOP WARNING] old"] }, false);
    await hook.run();
    expect(hook.sent().messages).toHaveLength(1);
    expect(hook.updates).toEqual([]);
  });

  it("clears pending warnings without injecting them into a forced final call", async () => {
    const hook = invoke({ ...freshLoopState("r1", "lead"), pending: ["[LOOP WARNING] x"] }, true);
    await hook.run();
    expect(hook.sent().messages).toHaveLength(1);
    expect(hook.updates).toEqual([{ loop: { ...freshLoopState("r1", "lead"), pending: [] } }]);
  });

  it("joins several pending warnings into one hidden message at the end", async () => {
    const hook = invoke({ ...freshLoopState("r1", "lead"), pending: ["[LOOP WARNING] a", "[LOOP WARNING] b"] }, false);
    await hook.run();
    const sent = hook.sent().messages;
    expect(sent).toHaveLength(2);
    expect(messageText(sent[1]!)).toBe("[LOOP WARNING] a\n\n[LOOP WARNING] b");
    expect(isHidden(sent[1]!)).toBe(true);
  });
});
