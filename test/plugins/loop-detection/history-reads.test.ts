import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { HookContext } from "../../../kernel/plugin/types.js";
import loopDetection, { freshLoopState, type LoopState } from "../../../plugins/loop-detection/index.js";

const options = { warnAt: 3, hardLimit: 5, window: 20, toolWarnAt: 30, toolHardLimit: 50, perTool: {} };

/** A history of `turns` tool-call turns behind a proxy that records which positions are read. */
function countingHistory(turns: number) {
  const messages: BaseMessage[] = [new HumanMessage({ id: "u", content: "go" })];
  for (let t = 1; t <= turns; t++) {
    messages.push(new AIMessage({ id: `a${t}`, content: "", tool_calls: [{ id: `c${t}`, name: "echo", args: { n: t } }] }));
    if (t < turns) messages.push(new ToolMessage({ id: `r${t}`, tool_call_id: `c${t}`, content: "ok" }));
  }
  const read = new Set<number>();
  const proxy = new Proxy(messages, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) read.add(Number(key));
      return Reflect.get(target, key, receiver);
    },
  });
  return { proxy, read, length: messages.length };
}

describe("loop-detection reads a bounded part of the history per turn", () => {
  it("afterModel looks at the newest assistant message only, whatever the history's length", () => {
    for (const turns of [10, 2000]) {
      const { proxy, read, length } = countingHistory(turns);
      const ctx = { runId: "r", agent: "lead", turn: turns, config: options, guard: () => undefined } as unknown as HookContext;
      const loop: LoopState = freshLoopState("r", "lead");
      const update = loopDetection.hooks.afterModel!({ messages: proxy, stopReasons: [], loop }, ctx) as { loop: LoopState };
      expect(update.loop.window).toHaveLength(1);
      expect([...read]).toEqual([length - 1]);
    }
  });
});
