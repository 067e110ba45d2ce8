import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { REMEMBERED_APPENDS } from "../../kernel/channels/message-index.js";
import { reduceChannel } from "../../kernel/channels/reducers.js";

/**
 * The append fast path remembers, per history, the array an append built from it (so
 * LangGraph's second reduction of the same update finds it). That memory must not keep a
 * thread's older histories alive: while the run's first history is reachable (a task's
 * input, the run's own input), a chain of remembered appends would retain every history
 * the run ever had — quadratic memory in the number of turns.
 */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const turn = (i: number): BaseMessage[] => [
  new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "noop", args: { i } }] }),
  new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: "ok" }),
];

/** Let the current job end (a WeakRef's target lives until then), then collect. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

describe("messages channel: the append fast path's memory", () => {
  it("an older history kept alive does not keep the histories appended after it alive", async () => {
    const first: BaseMessage[] = [new HumanMessage({ id: "u", content: "go" })];
    const later: WeakRef<BaseMessage[]>[] = [];
    let history = first;
    const turns = REMEMBERED_APPENDS * 4;
    for (let i = 0; i < turns; i++) {
      history = reduceChannel("messages", history, turn(i)) as BaseMessage[];
      later.push(new WeakRef(history));
    }
    const last = history;
    await collect();
    // At most the last REMEMBERED_APPENDS appends' results are held (by the bounded memory of appends).
    const alive = later.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
    expect(alive).toBeLessThanOrEqual(REMEMBERED_APPENDS);
    expect(later.slice(0, turns - REMEMBERED_APPENDS - 1).every((ref) => ref.deref() === undefined)).toBe(true);
    expect(first).toHaveLength(1);
    expect(last).toHaveLength(2 * turns + 1);
  });

  it("the second reduction of the same update still returns the array the first one built", () => {
    const start: BaseMessage[] = [new HumanMessage({ id: "u", content: "go" })];
    const update = turn(0);
    const once = reduceChannel("messages", start, update);
    expect(reduceChannel("messages", start, update)).toBe(once);
  });
});
