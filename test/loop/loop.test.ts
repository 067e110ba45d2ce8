import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { keelMeta } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import { plugin, runWith, tool, toolsPlugin } from "./harness.js";

const echo = toolsPlugin(tool("echo", (args) => `echo:${JSON.stringify(args)}`));

/** A guard that requests a stop after the model call of `turn`. */
function guard(turn: number, request: StopReasonEntry["request"], reason = "loop_capped") {
  return plugin(
    { name: "guard", hooks: { afterModel: { observes: ["messages"], mutates: ["stopReasons"] } } },
    { afterModel: (_s, ctx) => (ctx.turn === turn ? { stopReasons: [{ reason, by: "guard", turn, request }] } : undefined) },
  );
}

const looping = { turns: [{ content: "still working", toolCalls: [{ name: "echo", args: { n: 1 } }] }], then: "repeat-last" as const };

describe("agent loop", () => {
  it("runs parallel tool calls concurrently and appends results in tool-call order", async () => {
    let started = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const slow = tool("slow", async () => {
      if (++started === 2) release();
      await bothStarted;
      await new Promise((r) => setTimeout(r, 5));
      return "slow done";
    });
    const fast = tool("fast", async () => {
      if (++started === 2) release();
      await bothStarted;
      return "fast done";
    });
    const run = await runWith([toolsPlugin(slow, fast)], {
      turns: [{ toolCalls: [{ name: "slow", args: {} }, { name: "fast", args: {} }] }, { content: "ok" }],
    });
    expect(started).toBe(2);
    const toolMessages = run.messages.filter((m) => m.getType() === "tool");
    expect(toolMessages.map((m) => m.content)).toEqual(["slow done", "fast done"]);
    expect(toolMessages.map((m) => (m as { tool_call_id?: string }).tool_call_id)).toEqual(["call_lead_1_1", "call_lead_1_2"]);
  });

  it("applies wrapToolCall updates in tool-call order, whatever order the calls finish in", async () => {
    const recorder = plugin(
      { name: "recorder", channels: { seen: { schema: { type: "array" }, reducer: "append" } }, hooks: { wrapToolCall: { mutates: ["seen"] } } },
      { wrapToolCall: async (req, next, ctx) => {
        const res = await next(req);
        ctx.update({ seen: [req.toolCall.name] });
        return res;
      } },
    );
    const slow = tool("slow", () => new Promise((r) => setTimeout(() => r("s"), 10)));
    const run = await runWith([recorder, toolsPlugin(slow, tool("fast", () => "f"))], {
      turns: [{ toolCalls: [{ name: "slow", args: {} }, { name: "fast", args: {} }] }, { content: "ok" }],
    });
    expect(run.values.seen).toEqual(["slow", "fast"]);
  });

  it("answers an unknown tool and a throwing tool with error results, and goes on", async () => {
    const run = await runWith([toolsPlugin(tool("explode", () => { throw new Error("kaput"); }))], {
      turns: [{ toolCalls: [{ name: "nope", args: {} }, { name: "explode", args: {} }] }, { content: "recovered" }],
    });
    const results = run.messages.filter((m) => m.getType() === "tool") as Array<{ content: string; status?: string }>;
    expect(results.map((m) => m.status)).toEqual(["error", "error"]);
    expect(results[0]!.content).toMatch(/^KEEL_ERR_TOOL_UNKNOWN: there is no tool `nope`/);
    expect(results[1]!.content).toBe("KEEL_ERR_TOOL_FAILED: tool `explode` threw: kaput");
    expect(run.outcome.status).toBe("succeeded");
    expect(run.journal.filter((j) => j.kind === "tool_call").map((j) => j.status)).toEqual(["error", "error"]);
  });

  it("makes the maxTurns-th call the forced final one: failed without text", async () => {
    const run = await runWith([echo], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }], then: "repeat-last" }, { maxTurns: 3 });
    expect(run.turns).toBe(3);
    expect(run.requests.map((r) => r.tools)).toEqual([["echo"], ["echo"], []]);
    expect(run.outcome.status).toBe("failed");
    expect(run.outcome.error?.message).toBe("Reached max_turns=3");
    expect(run.outcome.stopReasons).toEqual([{ reason: "turn_capped", by: "kernel", turn: 3, limit: { type: "turns", value: 3 } }]);
    // The forced call's tool calls were discarded: only two tool results exist.
    expect(run.messages.filter((m) => m.getType() === "tool")).toHaveLength(2);
  });

  it("turn cap with text in the forced answer is partial, never succeeded", async () => {
    const run = await runWith([echo], looping, { maxTurns: 2 });
    expect(run.outcome.status).toBe("partial");
    expect(run.outcome.text).toBe("still working");
    expect(run.outcome.primaryStopReason).toBe("turn_capped");
  });

  it("tells the model why it must answer on the forced call", async () => {
    const run = await runWith([echo], looping, { maxTurns: 2 });
    const last = run.requests[1]!.messages.at(-1)!;
    expect(String(last.content)).toMatch(/^\[KEEL STOP\] This run must end now: turn_capped \(by kernel\)/);
    expect(keelMeta(last).hidden).toBe(true);
    // Never persisted.
    expect(run.messages.some((m) => String(m.content).startsWith("[KEEL STOP]"))).toBe(false);
  });

  it("a guard's `final` request strips the tool calls and forces one final call", async () => {
    let ran = 0;
    const counting = toolsPlugin(tool("echo", () => `ran ${++ran}`));
    const run = await runWith([counting, guard(2, "final")], looping);
    expect(ran).toBe(1); // turn 2's call was stripped before it could run
    expect(run.turns).toBe(3);
    expect(run.requests[2]!.tools).toEqual([]);
    expect(run.outcome.status).toBe("partial");
    expect(run.outcome.stopReasons).toEqual([{ reason: "loop_capped", by: "guard", turn: 2 }]);
    expect(keelMeta(run.messages[3]!).strippedToolCalls).toBe(1);
  });

  it("a guard's `end` request ends the run at once with an explanation that is not usable output", async () => {
    const run = await runWith([echo, guard(1, "end", "safety_capped")], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }] });
    expect(run.turns).toBe(1);
    expect(run.messages.filter((m) => m.getType() === "tool")).toHaveLength(0);
    expect(String(run.messages.at(-1)!.content)).toContain("[Keel stopped this run: safety_capped (by guard)]");
    expect(run.outcome.status).toBe("failed");
    expect(run.outcome.primaryStopReason).toBe("safety_capped");
  });

  it("a stop reason without a request only records it", async () => {
    const run = await runWith([echo, guard(1, undefined, "progress_blocked")], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "fine" }] });
    expect(run.turns).toBe(2);
    expect(run.outcome.status).toBe("partial");
  });

  it("ends failed with the provider's message when a model error is not handled", async () => {
    const run = await runWith([], { turns: [{ content: "x" }] }, { faults: [{ agent: "lead", turn: 1, error: { status: 500, message: "upstream exploded" } }] });
    expect(run.outcome).toMatchObject({ status: "failed", error: { type: "KEEL_ERR_MODEL_FAILED", message: "upstream exploded", retryable: true } });
  });

  it("is cancelled through its AbortSignal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const run = await runWith([], { turns: [{ content: "x" }] }, { signal: controller.signal, faults: [{ agent: "lead", turn: 1, kind: "hang" }] });
    expect(run.outcome.status).toBe("cancelled");
    expect(run.outcome.error?.type).toBe("KEEL_ERR_RUN_CANCELLED");
  });

  it("gives hooks a summarize port that does not consume scripted turns", async () => {
    let summary = "";
    const summarizer = plugin({ name: "summarizer" }, { beforeModel: async (_s, ctx) => {
      summary = await ctx.summarize([new HumanMessage("first line\nsecond"), new HumanMessage("another")]);
    } });
    const run = await runWith([summarizer], { turns: [{ content: "answer" }] });
    expect(summary).toBe("- human: first line\n- human: another");
    expect(run.outcome.text).toBe("answer");
  });

  it("normalizes usage per agent and the provider finish reason", async () => {
    const run = await runWith([], { turns: [{ content: "hi", provider: "anthropic", usage: { input_tokens: 7, output_tokens: 3 } }] });
    expect(run.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    expect(run.values.usage).toEqual({ lead: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } });
    expect(keelMeta(run.messages.at(-1)!).finish).toEqual({ kind: "stop", raw: "end_turn", provider: "anthropic" });
  });

  it("journals every model and tool call with hashes", async () => {
    const run = await runWith([echo], { turns: [{ toolCalls: [{ name: "echo", args: { b: 2, a: 1 } }] }, { content: "done" }] });
    const kinds = run.journal.map((j) => `${j.kind}:${j.name ?? ""}:${j.status}`);
    expect(kinds).toEqual(["lifecycle:start:running", "model_call::ok", "tool_call:echo:success", "model_call::ok", "lifecycle:end:succeeded"]);
    const toolEntry = run.journal.find((j) => j.kind === "tool_call")!;
    // sha256 of canonical JSON {"a":1,"b":2}
    expect(toolEntry.argsSha256).toBe("43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777");
    expect(run.journal.map((j) => j.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps a thread's messages across runs but starts stop reasons and usage afresh", async () => {
    const { compose } = await import("../../kernel/compose/index.js");
    const { createAgentRuntime } = await import("../../kernel/loop/runtime.js");
    const { ScriptedChatModel } = await import("../../tools/testing/scripted-model.js");
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [echo] }), {
      model: new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "one" }, { content: "two" }] } }),
      maxTurns: 3,
      systemPrompt: "You are terse.",
    });
    const first = await runtime.run({ threadId: "t", runId: "r1", input: "first" });
    const second = await runtime.run({ threadId: "t", runId: "r2", input: "second" });
    expect(first.outcome.status).toBe("succeeded");
    expect(second.outcome).toMatchObject({ status: "succeeded", text: "two", stopReasons: [] });
    expect(second.messages.map((m) => m.getType())).toEqual(["system", "human", "ai", "tool", "ai", "human", "ai"]);
    expect(second.turns).toBe(1);
  });
});

describe("persisted messages", () => {
  it("keep the ids the kernel gave them across a checkpoint round trip", async () => {
    const run = await runWith([echo], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "done" }] });
    expect(run.messages.map((m) => m.id)).toEqual(["run-1:input:1", "run-1:lead:1", "call_lead_1_1:result", "run-1:lead:2"]);
  });
});

describe("turn cap without tools", () => {
  it("still ends the run at maxTurns when the model asks for tools that are not bound", async () => {
    const run = await runWith([], { turns: [{ toolCalls: [{ name: "ghost", args: {} }] }], then: "repeat-last" }, { maxTurns: 3 });
    expect(run.turns).toBe(3);
    expect(run.outcome).toMatchObject({ status: "failed", error: { message: "Reached max_turns=3" } });
    expect(run.outcome.stopReasons).toEqual([{ reason: "turn_capped", by: "kernel", turn: 3, limit: { type: "turns", value: 3 } }]);
  });

  it("does not cap a tool-less agent that answers in its last allowed turn", async () => {
    const run = await runWith([], { turns: [{ content: "hello" }] }, { maxTurns: 1 });
    expect(run.outcome).toMatchObject({ status: "succeeded", text: "hello", stopReasons: [] });
  });
});

describe("calls answered before the tools step", () => {
  /** Answers the first call of each batch in afterModel, as a refusal would. */
  const refuser = plugin(
    { name: "refuser", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"] } } },
    { afterModel: async (state) => {
      const { AIMessage: AI, ToolMessage: Tool } = await import("@langchain/core/messages");
      const last = (state.messages as unknown[]).at(-1);
      if (!AI.isInstance(last) || !last.tool_calls?.length) return undefined;
      const first = last.tool_calls[0]!;
      return { messages: [new Tool({ id: `${first.id}:refused`, tool_call_id: first.id!, content: "refused", status: "error" })] };
    } },
  );

  it("runs the remaining calls and skips the answered one", async () => {
    let ran = 0;
    const counting = toolsPlugin(tool("echo", () => `ran ${++ran}`));
    const run = await runWith([counting, refuser], {
      turns: [{ toolCalls: [{ name: "echo", args: { n: 1 } }, { name: "echo", args: { n: 2 } }] }, { content: "done" }],
    });
    expect(ran).toBe(1);
    const results = run.messages.filter((m) => m.getType() === "tool").map((m) => m.content);
    expect(results).toEqual(["refused", "ran 1"]);
    expect(run.outcome.status).toBe("succeeded");
  });

  it("drops those results when a stop strips the calls, leaving no orphan", async () => {
    const run = await runWith([echo, refuser, guard(1, "final")], looping, { order: [["guard", "refuser"]] });
    expect(run.messages.filter((m) => m.getType() === "tool")).toHaveLength(0);
    expect(run.outcome.status).toBe("partial");
  });
});
