import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { isHidden, messageText } from "../../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../../kernel/loop/status.js";
import type { ModelRequestRecord, StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import type { ChannelUpdate, HookContext, ModelRequest, Plugin } from "../../../kernel/plugin/types.js";
import type { ScriptedTurn } from "../../../tools/testing/scripted-model.js";
import { pluginRuntime } from "../plugin-runtime.js";
import finishReason from "../../../plugins/finish-reason/index.js";
import loopDetection, { freshLoopState, type LoopState } from "../../../plugins/loop-detection/index.js";

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

describe("loop-detection afterModel after finish-reason: safety before loop accounting", () => {
  /** The composed afterModel chain (finish-reason first), driven by hand over five responses. */
  function chain(plugins: Plugin[], config: Record<string, Record<string, unknown>> = {}) {
    const composition = compose({ name: "t", plugins }, { config: [config] });
    const state: Record<string, unknown> = { messages: [new HumanMessage("go")], stopReasons: [] };
    const guardsSeen: Array<{ plugin: string; action: string; reason: string }> = [];
    const respond = (turn: number, response: AIMessage) => {
      state.messages = [...(state.messages as BaseMessage[]), response];
      for (const name of composition.hooks.afterModel) {
        const member = composition.plugins.get(name)!;
        const ctx = {
          plugin: name,
          hook: "afterModel",
          runId: "r1",
          threadId: "t1",
          agent: "lead",
          turn,
          config: member.config,
          guard: (g: { action: string; reason: string }) => guardsSeen.push({ plugin: name, ...g }),
        } as unknown as HookContext;
        const update = member.plugin.hooks.afterModel!(state, ctx) as ChannelUpdate | undefined;
        if (update?.stopReasons) state.stopReasons = [...(state.stopReasons as StopReasonEntry[]), ...(update.stopReasons as StopReasonEntry[])];
        if (update?.loop) state.loop = update.loop;
      }
    };
    return { composition, state, respond, guardsSeen };
  }
  const filtered = (turn: number) =>
    new AIMessage({ id: `m${turn}`, content: "", tool_calls: [{ id: `c${turn}`, name: "echo", args: { query: "same" }, type: "tool_call" }], response_metadata: { finish_reason: "content_filter" } });

  it("five content_filter responses with identical tool calls are never counted: no loop_capped, no warning", () => {
    const { composition, state, respond, guardsSeen } = chain([finishReason, loopDetection]);
    expect(composition.hooks.afterModel).toEqual(["finish-reason", "loop-detection"]);
    for (let turn = 1; turn <= 5; turn++) respond(turn, filtered(turn));
    const stops = state.stopReasons as StopReasonEntry[];
    expect(stops.map((s) => s.reason)).toEqual(Array.from({ length: 5 }, () => "safety_capped"));
    expect(stops.some((s) => s.reason === "loop_capped")).toBe(false);
    expect(guardsSeen.every((g) => g.plugin === "finish-reason" && g.action === "stop")).toBe(true);
    // Nothing was counted: no loop state was ever written.
    expect(state.loop).toBeUndefined();
  });

  it("the same responses without a safety finish are counted (warn at 3, stop at 5)", () => {
    const { state, respond, guardsSeen } = chain([finishReason, loopDetection]);
    for (let turn = 1; turn <= 5; turn++) {
      const m = filtered(turn);
      m.response_metadata = { finish_reason: "tool_calls" };
      respond(turn, m);
    }
    expect((state.stopReasons as StopReasonEntry[]).map((s) => s.reason)).toEqual(["loop_capped"]);
    expect(guardsSeen.map((g) => [g.plugin, g.action])).toEqual([["loop-detection", "warn"], ["loop-detection", "stop"]]);
    expect((state.loop as LoopState).window).toHaveLength(5);
  });
});
