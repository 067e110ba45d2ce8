import { describe, expect, it } from "vitest";
import { callKey, describeCalls, freshLoopState, hashToolCalls, MAX_PENDING, trackToolCalls, type LoopOptions, type LoopState } from "../../../plugins/loop-detection/index.js";

const defaults: LoopOptions = { warnAt: 3, hardLimit: 5, window: 20, toolWarnAt: 30, toolHardLimit: 50, perTool: {} };

/** Feed one message's calls per step; returns every verdict. */
function feed(steps: Array<Array<{ name: string; args: Record<string, unknown> }>>, options: LoopOptions = defaults) {
  let state: LoopState = freshLoopState("r1", "lead");
  return steps.map((calls, i) => {
    const verdict = trackToolCalls(state, calls, options, `m${i + 1}`);
    state = verdict.state;
    return verdict;
  });
}

describe("callKey", () => {
  it("buckets read_file by the 200-line range of startLine and ignores endLine", () => {
    const key = (args: Record<string, unknown>) => callKey({ name: "read_file", args });
    expect(key({ path: "a.md" })).toBe('read_file:{"lines":"1-200","path":"a.md"}');
    expect(key({ path: "a.md", startLine: 200, endLine: 210 })).toBe(key({ path: "a.md" }));
    expect(key({ path: "a.md", startLine: 201 })).toBe('read_file:{"lines":"201-400","path":"a.md"}');
    expect(key({ path: "a.md", startLine: 401 })).not.toBe(key({ path: "a.md", startLine: 400 }));
    expect(key({ path: "b.md" })).not.toBe(key({ path: "a.md" }));
    expect(key({ path: "a.md", startLine: "nonsense" })).toBe(key({ path: "a.md" }));
  });

  it("keys other tools by their salient arguments only", () => {
    expect(callKey({ name: "bash", args: { command: "ls", timeoutSeconds: 5 } })).toBe('bash:{"command":"ls"}');
    expect(callKey({ name: "bash", args: { command: "ls", timeoutSeconds: 9 } })).toBe(callKey({ name: "bash", args: { command: "ls" } }));
    expect(callKey({ name: "search", args: { query: "x", pattern: "*.ts", limit: 3 } })).toBe('search:{"pattern":"*.ts","query":"x"}');
    expect(callKey({ name: "fetch", args: { url: "https://a.example", headers: { a: 1 } } })).toBe('fetch:{"url":"https://a.example"}');
  });

  it("keys tools without salient arguments, and file edits, by their full canonical arguments", () => {
    expect(callKey({ name: "calc", args: { b: 2, a: 1 } })).toBe('calc:{"a":1,"b":2}');
    expect(callKey({ name: "calc", args: { a: 1, b: 2 } })).toBe(callKey({ name: "calc", args: { b: 2, a: 1 } }));
    expect(callKey({ name: "calc", args: { a: 1, b: 3 } })).not.toBe(callKey({ name: "calc", args: { a: 1, b: 2 } }));
    expect(callKey({ name: "write_file", args: { path: "r.md", content: "v1" } })).not.toBe(callKey({ name: "write_file", args: { path: "r.md", content: "v2" } }));
    expect(callKey({ name: "str_replace", args: { path: "r.md", oldText: "a", newText: "b" } })).not.toBe(
      callKey({ name: "str_replace", args: { path: "r.md", oldText: "b", newText: "c" } }),
    );
    expect(callKey({ name: "calc", args: null })).toBe("calc:{}");
  });
});

describe("hashToolCalls", () => {
  const a = { name: "read_file", args: { path: "a.md" } };
  const b = { name: "bash", args: { command: "ls" } };
  it("is independent of call order but not of the call multiset", () => {
    expect(hashToolCalls([a, b])).toBe(hashToolCalls([b, a]));
    expect(hashToolCalls([a, b])).not.toBe(hashToolCalls([a]));
    expect(hashToolCalls([a, a])).not.toBe(hashToolCalls([a]));
    expect(hashToolCalls([a])).toMatch(/^[0-9a-f]{16}$/);
    expect(describeCalls([b, a])).toBe('bash:{"command":"ls"}, read_file:{"lines":"1-200","path":"a.md"}');
  });
});

describe("trackToolCalls", () => {
  const same = [{ name: "read_file", args: { path: "a.md" } }];

  it("warns once at the 3rd identical call set and stops at the 5th", () => {
    const verdicts = feed([same, same, same, same, same]);
    expect(verdicts.map((v) => v.warnings.length)).toEqual([0, 0, 1, 0, 0]);
    expect(verdicts.map((v) => v.stop !== null)).toEqual([false, false, false, false, true]);
    expect(verdicts[2]!.warnings[0]!.text.startsWith("[LOOP WARNING]")).toBe(true);
    expect(verdicts[2]!.state.pending).toEqual([verdicts[2]!.warnings[0]!.text]);
    expect(verdicts[4]!.stop).toEqual({ detail: 'the same tool calls 5 times in the last 20 tool-call turns: read_file:{"lines":"1-200","path":"a.md"}', limit: 5 });
    expect(verdicts[4]!.state.lastMessageId).toBe("m5");
  });

  it("treats the same calls in another order as the same set", () => {
    const x = { name: "bash", args: { command: "ls" } };
    const y = { name: "bash", args: { command: "pwd" } };
    const verdicts = feed([[x, y], [y, x], [x, y], [y, x], [x, y]]);
    expect(verdicts.map((v) => v.stop !== null)).toEqual([false, false, false, false, true]);
  });

  it("only counts repeats inside the window", () => {
    const other = (n: number) => [{ name: "bash", args: { command: `echo ${n}` } }];
    // With window 3, `same` never appears more than twice in the last 3 messages.
    const steps = [same, other(1), same, other(2), same, other(3), same, other(4), same, other(5), same];
    const verdicts = feed(steps, { ...defaults, window: 3, warnAt: 3, hardLimit: 3 });
    expect(verdicts.every((v) => v.stop === null && v.warnings.length === 0)).toBe(true);
    const wide = feed(steps, { ...defaults, window: 20, warnAt: 3, hardLimit: 5 });
    expect(wide.findIndex((v) => v.stop !== null)).toBe(8);
  });

  it("counts one tool across different arguments: warn at toolWarnAt, stop at toolHardLimit", () => {
    const steps = Array.from({ length: 5 }, (_, i) => [{ name: "bash", args: { command: `echo ${i}` } }]);
    const verdicts = feed(steps, { ...defaults, toolWarnAt: 3, toolHardLimit: 5 });
    expect(verdicts.map((v) => v.warnings.map((w) => w.detail))).toEqual([[], [], ["tool `bash` called 3 times in this run (warn at 3, limit 5)"], [], []]);
    expect(verdicts[4]!.stop).toEqual({ detail: "tool `bash` called 5 times in this run (limit 5)", limit: 5 });
  });

  it("counts every call of a message and honours per-tool overrides", () => {
    const read = (n: number) => ({ name: "read_file", args: { path: `f${n}.md` } });
    const options = { ...defaults, toolWarnAt: 2, toolHardLimit: 3, perTool: { read_file: { hardLimit: 6 } } };
    const verdicts = feed([[read(1), read(2)], [read(3), read(4)], [read(5), read(6)]], options);
    expect(verdicts[0]!.warnings.map((w) => w.detail)).toEqual(["tool `read_file` called 2 times in this run (warn at 2, limit 6)"]);
    expect(verdicts[1]!.stop).toBeNull();
    expect(verdicts[2]!.stop).toEqual({ detail: "tool `read_file` called 6 times in this run (limit 6)", limit: 6 });
    expect(verdicts[2]!.state.toolCounts).toEqual({ read_file: 6 });
  });

  it("does not count task / return_result for frequency by default: 60 distinct delegations, no warning, no stop", () => {
    const task = (i: number) => ({ name: "task", args: { description: `part ${i}`, prompt: `Do part ${i}.`, subagentType: "general-purpose" } });
    const steps = Array.from({ length: 15 }, (_, b) => [task(4 * b), task(4 * b + 1), task(4 * b + 2), task(4 * b + 3)]);
    const verdicts = feed([...steps, [{ name: "return_result", args: { text: "a" } }], [{ name: "return_result", args: { text: "b" } }]], { ...defaults, toolWarnAt: 2, toolHardLimit: 3 });
    expect(verdicts.every((v) => v.stop === null && v.warnings.length === 0)).toBe(true);
    expect(verdicts.at(-1)!.state.toolCounts).toEqual({});
  });

  it("counts exempt tools when the list is emptied or perTool names them", () => {
    const task = (i: number) => [{ name: "task", args: { description: `part ${i}` } }];
    const counted = feed([task(1), task(2), task(3)], { ...defaults, toolWarnAt: 2, toolHardLimit: 3, frequencyExempt: [] });
    expect(counted[2]!.stop).toEqual({ detail: "tool `task` called 3 times in this run (limit 3)", limit: 3 });
    const named = feed([task(1), task(2)], { ...defaults, perTool: { task: { hardLimit: 2 } } });
    expect(named[1]!.stop).toEqual({ detail: "tool `task` called 2 times in this run (limit 2)", limit: 2 });
  });

  it("still counts identical task calls as a repeated call set (a real loop)", () => {
    const same = [{ name: "task", args: { description: "same", prompt: "Same again.", subagentType: "general-purpose" } }];
    const verdicts = feed([same, same, same, same, same]);
    expect(verdicts[2]!.warnings.map((w) => w.detail)).toEqual([expect.stringContaining("the same tool calls 3 times")]);
    expect(verdicts[4]!.stop).toMatchObject({ limit: 5, detail: expect.stringContaining("the same tool calls 5 times") });
    expect(verdicts[4]!.state.toolCounts).toEqual({});
  });

  it("keeps at most 4 pending warnings, the newest", () => {
    const calls = Array.from({ length: 6 }, (_, i) => ({ name: `tool${i}`, args: {} }));
    const [verdict] = feed([calls], { ...defaults, toolWarnAt: 1, toolHardLimit: 10 });
    expect(verdict!.warnings).toHaveLength(6);
    expect(verdict!.state.pending).toHaveLength(MAX_PENDING);
    expect(verdict!.state.pending).toEqual(verdict!.warnings.slice(2).map((w) => w.text));
  });

  it("does not queue warnings when the same message reaches a hard limit", () => {
    const [verdict] = feed([[{ name: "bash", args: { command: "ls" } }]], { ...defaults, toolWarnAt: 1, toolHardLimit: 1 });
    expect(verdict!.stop).not.toBeNull();
    expect(verdict!.warnings).toEqual([]);
    expect(verdict!.state.pending).toEqual([]);
  });
});
