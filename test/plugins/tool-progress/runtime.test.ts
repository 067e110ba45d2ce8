import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { KeelTool, ToolOutput } from "../../../kernel/plugin/types.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { RunScope, systemClock, type ModelRequestRecord, type StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../tools/testing/scripted-model.js";
import { toolProgressPlugin, type ToolProgressValue } from "../../../plugins/tool-progress/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

/** Probe tools: each answers from its own list (the last entry repeats) and counts its runs. */
function probeTools(outputs: Record<string, ToolOutput[]>) {
  const runs: Record<string, number> = {};
  const tools: KeelTool[] = Object.entries(outputs).map(([name, list]) => ({
    name,
    description: name,
    schema: { type: "object" },
    invoke: () => {
      const n = (runs[name] = (runs[name] ?? 0) + 1);
      return list[Math.min(n, list.length) - 1]!;
    },
  }));
  const plugin = definePlugin({
    manifest: { name: "probe-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "probe tools", hooks: {} },
    tools,
  });
  return { plugin, runs };
}

const fail = (content = "backend unavailable"): ToolOutput => ({ content, status: "error" });
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const turn = (...calls: Array<ReturnType<typeof call>>): ScriptedTurn => ({ toolCalls: calls });
const page = (n: number) => Array.from({ length: 20 }, (_, i) => `page${n}word${i}`).join(" ");

function setup(outputs: Record<string, ToolOutput[]>, config: Record<string, unknown> = {}) {
  const probe = probeTools(outputs);
  const composition = compose({ name: "t", plugins: [probe.plugin, toolProgressPlugin] }, { config: [{ "tool-progress": config }] });
  return { ...probe, composition };
}

async function run(setupResult: ReturnType<typeof setup>, turns: ScriptedTurn[], opts: { threadId?: string; runId?: string; runtime?: ReturnType<typeof createAgentRuntime> } = {}) {
  const events: StreamEventRecord[] = [];
  const requests: ModelRequestRecord[] = [];
  const runtime = opts.runtime ?? createAgentRuntime(setupResult.composition, { model: new ScriptedChatModel({ script: { turns } }) });
  const runId = opts.runId ?? "r1";
  const threadId = opts.threadId ?? "t1";
  const scope = new RunScope(runId, threadId, systemClock, { event: (e) => events.push(e), modelRequest: (r) => requests.push(r) });
  const result = await runtime.run({ threadId, runId, input: "go", scope });
  const results = result.messages.filter((m: BaseMessage): m is ToolMessage => ToolMessage.isInstance(m));
  const guards = events.filter((e) => e.event === "guard").map((e) => e.data as Record<string, unknown>);
  // The hints each model request ended with (a hidden user message), by turn.
  const hints = requests.map((r) => {
    const last = r.messages.at(-1)!;
    return HumanMessage.isInstance(last) && String(last.content).startsWith("[TOOL_PROGRESS]") ? String(last.content) : undefined;
  });
  return { result, results, guards, runtime, hints, progress: result.values.toolProgress as ToolProgressValue };
}

describe("tool-progress through a real runtime", () => {
  it("passes the plugin tester's manifest audit", () => {
    expect(new PluginTester().audit(toolProgressPlugin)).toEqual([]);
  });

  it("counts parallel calls of one tool as separate results: 5 failing calls in one step block it", async () => {
    const s = setup({ flaky: [fail()] });
    const { results, progress, result, guards } = await run(s, [turn(...Array.from({ length: 5 }, () => call("flaky"))), turn(call("flaky")), { content: "gave up" }]);
    // All five of the first step ran (they saw the same active snapshot); the 6th call did not.
    expect(s.runs.flaky).toBe(5);
    expect(results).toHaveLength(6);
    expect(results[5]!.content).toMatch(/^\[TOOL_BLOCKED\] `flaky` has failed or repeated itself 5 times in a row/);
    expect(results[5]!.status).toBe("error");
    expect(progress.tools.flaky).toMatchObject({ status: "blocked", problems: 5, blockedRunId: "r1" });
    expect(results.slice(0, 5).filter((r) => String(r.content).startsWith("[TOOL_BLOCKED]"))).toHaveLength(1);
    expect(guards.map((g) => g.action)).toEqual(["warn", "warn", "block", "refuse"]);
    expect(result.outcome.status).toBe("partial");
    expect(result.outcome.stopReasons.map((r) => r.reason)).toEqual(["progress_blocked"]);
  });

  it("tracks different tools called in parallel independently", async () => {
    const s = setup({ a: [fail()], b: ["fine"] });
    const { progress } = await run(s, [turn(call("a"), call("b")), turn(call("b"), call("a")), { content: "done" }]);
    expect(progress.tools.a).toMatchObject({ status: "active", problems: 2 });
    expect(progress.tools.b).toMatchObject({ status: "active", problems: 0 });
  });

  it("blocks a tool whose successful results repeat themselves", async () => {
    const s = setup({ search: [page(1)] });
    const { results, progress } = await run(s, [...Array.from({ length: 7 }, () => turn(call("search", { q: "tides" }))), { content: "done" }]);
    expect(s.runs.search).toBe(6); // results 2–6 repeat the first; the 6th blocks; the 7th is refused
    expect(progress.tools.search).toMatchObject({ status: "blocked", problems: 5 });
    expect(results[6]!.content).toMatch(/^\[TOOL_BLOCKED\] `search` has failed or repeated itself 5 times in a row \(last: the same result as before\)/);
  });

  it("blocks at once on an auth/config error", async () => {
    const s = setup({ web: [fail("HTTP 401 Unauthorized: invalid api key")] });
    const { results, result } = await run(s, [turn(call("web")), turn(call("web")), { content: "no web" }]);
    expect(s.runs.web).toBe(1);
    expect(results[0]!.content).toMatch(/^\[TOOL_BLOCKED\] `web` failed with an authentication or configuration error/);
    expect(results[0]!.content).toContain("This call's result:\nHTTP 401 Unauthorized: invalid api key");
    expect(results[1]!.content).toMatch(/^\[TOOL_BLOCKED\] /);
    expect(result.outcome.stopReasons).toHaveLength(1);
    expect(result.outcome.stopReasons[0]).toMatchObject({ reason: "progress_blocked", by: "tool-progress", turn: 1 });
  });

  it("gives at most 3 hints per run", async () => {
    const s = setup({ a: [fail()], b: [fail()] });
    const steps = Array.from({ length: 4 }, () => turn(call("a"), call("b")));
    const { results, hints } = await run(s, [...steps, { content: "done" }]);
    // Steps 3 and 4 warn a and b each: three hints in all, the first two in one message.
    expect(hints.map((h) => h?.match(/`[ab]`/g)?.join(" "))).toEqual([undefined, undefined, undefined, "`a` `b`", "`a`"]);
    expect(results.some((r) => String(r.content).includes("[TOOL_PROGRESS]"))).toBe(false);
    expect(results).toHaveLength(8);
  });

  it("gives no hint to a forced final call, and leaves none waiting for the next run", async () => {
    const s = setup({ flaky: [fail()] });
    const model = new ScriptedChatModel({ script: { turns: [turn(call("flaky")), turn(call("flaky")), turn(call("flaky")), { content: "forced answer" }] } });
    const runtime = createAgentRuntime(s.composition, { model, maxTurns: 4 });
    const { hints, progress, guards } = await run(s, [], { runtime });
    // The 3rd failure warns; the request after it is the forced final call (the turn cap): no hint.
    expect(guards.map((g) => g.action)).toEqual(["warn"]);
    expect(hints).toEqual([undefined, undefined, undefined, undefined]);
    expect(progress.hints).toEqual({ runId: "r1", count: 1 });
  });

  it("a good result resets the count", async () => {
    const s = setup({ flaky: [fail(), fail(), fail(), "ok now", fail(), fail(), fail(), fail()] });
    const { progress, results } = await run(s, [...Array.from({ length: 8 }, () => turn(call("flaky"))), { content: "done" }]);
    expect(s.runs.flaky).toBe(8);
    expect(progress.tools.flaky).toMatchObject({ status: "warned", problems: 4 });
    expect(results.some((r) => String(r.content).startsWith("[TOOL_BLOCKED]"))).toBe(false);
  });

  it("never judges `task` and `return_result`", async () => {
    const s = setup({ task: [fail()], return_result: [fail()] });
    const { progress, results } = await run(s, [...Array.from({ length: 6 }, () => turn(call("task"), call("return_result"))), { content: "done" }]);
    expect(s.runs).toEqual({ task: 6, return_result: 6 });
    expect(progress).toBeUndefined();
    expect(results.every((r) => r.content === "backend unavailable")).toBe(true);
  });

  it("honours warnAfter/blockAfter from the config", async () => {
    const s = setup({ flaky: [fail()] }, { warnAfter: 1, blockAfter: 2 });
    const { results, hints } = await run(s, [turn(call("flaky")), turn(call("flaky")), turn(call("flaky")), { content: "done" }]);
    expect(s.runs.flaky).toBe(2);
    expect(hints[1]).toMatch(/^\[TOOL_PROGRESS\] `flaky` has failed or repeated itself 1 times in a row/);
    expect(results[0]!.content).toBe("backend unavailable");
    expect(results[1]!.content).toMatch(/^\[TOOL_BLOCKED\]/);
  });

  it("keeps state per thread: a later run of the thread keeps the counts, but a block lasts one run", async () => {
    const s = setup({ flaky: [fail()] });
    const model = new ScriptedChatModel({ script: { turns: [...Array.from({ length: 4 }, () => turn(call("flaky"))), { content: "stopping" }, turn(call("flaky")), turn(call("flaky")), { content: "again" }] } });
    const runtime = createAgentRuntime(s.composition, { model });
    const first = await run(s, [], { runtime, runId: "r1" });
    expect(first.progress.tools.flaky).toMatchObject({ status: "warned", problems: 4 });

    const second = await run(s, [], { runtime, runId: "r2" });
    // The 5th consecutive failure (first call of run 2) blocks; the next call is refused.
    expect(s.runs.flaky).toBe(5);
    expect(second.progress.tools.flaky).toMatchObject({ status: "blocked", problems: 5, blockedRunId: "r2" });
    expect(second.result.outcome.stopReasons.map((r) => r.reason)).toEqual(["progress_blocked"]);

    // Another thread starts from nothing.
    const other = setup({ flaky: [fail()] });
    const fresh = await run(other, [turn(call("flaky")), { content: "x" }], { threadId: "t2" });
    expect(fresh.progress.tools.flaky).toMatchObject({ status: "active", problems: 1 });
  });

  it("lifts a block in the next run of the thread", async () => {
    const s = setup({ web: [fail("403 Forbidden"), "results"] });
    const model = new ScriptedChatModel({ script: { turns: [turn(call("web")), { content: "blocked" }, turn(call("web")), { content: "ok" }] } });
    const runtime = createAgentRuntime(s.composition, { model });
    const first = await run(s, [], { runtime, runId: "r1" });
    expect(first.progress.tools.web!.status).toBe("blocked");
    const second = await run(s, [], { runtime, runId: "r2" });
    expect(s.runs.web).toBe(2);
    expect(second.results.at(-1)!.content).toBe("results");
    expect(second.progress.tools.web).toMatchObject({ status: "active", problems: 0 });
    expect(second.result.outcome.status).toBe("succeeded");
  });
});
