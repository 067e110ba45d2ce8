/**
 * Pauses of the agent loop (kernel/loop/pause.ts): LangGraph's static interrupts on the
 * loop's nodes, `interrupt()` inside a hook, and the resume runs that continue a paused
 * thread with their budgets carried over.
 */
import { describe, expect, it } from "vitest";
import { interrupt, MemorySaver } from "@langchain/langgraph";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { compose } from "../../kernel/compose/index.js";
import { pendingNodes } from "../../kernel/loop/pause.js";
import { createAgentRuntime, type RunOptions } from "../../kernel/loop/runtime.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../tools/testing/scripted-model.js";
import { plugin, tool, toolsPlugin } from "./harness.js";
import type { Plugin } from "../../kernel/plugin/types.js";

function setup(script: ScriptedAgent, extra: Plugin[] = [], maxTurns?: number) {
  const ran: string[] = [];
  const echo = tool("echo", async (args) => {
    ran.push(String((args as { text?: string }).text));
    return `echoed ${String((args as { text?: string }).text)}`;
  });
  const composition = compose({ name: "test", plugins: [toolsPlugin(echo), ...extra] });
  const model = new ScriptedChatModel({ script });
  const runtime = createAgentRuntime(composition, { model, checkpointer: new MemorySaver(), ...(maxTurns ? { maxTurns } : {}) });
  let n = 0;
  const run = (options: Partial<RunOptions>) => runtime.run({ threadId: "t1", runId: `r${++n}`, input: "go", ...options });
  return { runtime, run, ran, model };
}

const callEcho = (text: string) => ({ content: `calling ${text}`, toolCalls: [{ name: "echo", args: { text } }] });

describe("static interrupts", () => {
  it("interrupt_before tools pauses before the call: partial + awaiting_input, no tool ran; input null resumes and runs it", async () => {
    const { run, ran, runtime } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" });
    const paused = await run({ interrupts: { before: ["tools"] } });
    expect(ran).toEqual([]);
    expect(paused.outcome.status).toBe("partial");
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(paused.outcome.stopReasons.map((r) => r.reason)).toEqual(["awaiting_input"]);
    expect(paused.turns).toBe(1);
    const values = await runtime.getState("t1");
    expect(((values.messages as BaseMessage[]).at(-1) as AIMessage).tool_calls?.[0]?.name).toBe("echo");

    const resumed = await run({ input: null });
    expect(ran).toEqual(["a"]);
    expect(resumed.outcome.status).toBe("succeeded");
    expect(resumed.outcome.text).toBe("done");
    expect(resumed.turns).toBe(2);
  });

  it("command resume continues a static pause; interrupt_after agent pauses after the model step", async () => {
    const { run, ran } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" });
    const paused = await run({ interrupts: { after: ["agent"] } });
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual([]);
    const resumed = await run({ input: null, command: { resume: "go on" } });
    expect(ran).toEqual(["a"]);
    expect(resumed.outcome.status).toBe("succeeded");
  });

  it("command update + goto: the update lands and the loop continues at the named node", async () => {
    const { run, ran, runtime } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" });
    const paused = await run({ interrupts: { after: ["tools"] } });
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual(["a"]);
    const resumed = await run({ input: null, command: { update: { messages: [{ role: "user", content: "and say hi" }] }, goto: "agent" } });
    const messages = (await runtime.getState("t1")).messages as BaseMessage[];
    expect(messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "human", "ai"]);
    expect(messages[3]!.content).toBe("and say hi");
    expect(resumed.outcome.status).toBe("succeeded");
    expect(resumed.turns).toBe(2);
  });

  it("an unknown node name is refused before anything runs", async () => {
    const { run, ran } = setup({ turns: [callEcho("a")], then: "stop" });
    await expect(run({ interrupts: { before: ["tool"] as never } })).rejects.toMatchObject({ code: "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", pointer: "interruptBefore/0" });
    expect(ran).toEqual([]);
  });

  it("budgets continue across resumes: maxTurns is reached over two resumes, usage adds up", async () => {
    const { run, ran } = setup({ turns: [callEcho("1"), callEcho("2"), callEcho("3"), callEcho("4")], then: "repeat-last" }, [], 3);
    const first = await run({ interrupts: { before: ["tools"] } });
    expect(first.turns).toBe(1);
    const second = await run({ input: null, interrupts: { before: ["tools"] } });
    expect(second.turns).toBe(2);
    expect(second.outcome.primaryStopReason).toBe("awaiting_input");
    const third = await run({ input: null, interrupts: { before: ["tools"] } });
    // The third model call is the forced final one (maxTurns = 3 counted across the runs): no tools step to pause before.
    expect(third.turns).toBe(3);
    expect(third.outcome.stopReasons.map((r) => r.reason)).toContain("turn_capped");
    expect(third.outcome.stopReasons.map((r) => r.reason)).not.toContain("awaiting_input");
    expect(ran).toEqual(["1", "2"]);
    expect(third.usage.totalTokens).toBeGreaterThan(second.usage.totalTokens);
    expect(second.usage.totalTokens).toBeGreaterThan(first.usage.totalTokens);
  });

  it("afterAgent runs at the pause and again at the end of the resume run", async () => {
    const ends: number[] = [];
    const watcher = plugin({ name: "watcher", hooks: { afterAgent: { observes: ["messages"] } } }, { afterAgent: async (state) => void ends.push((state.messages as unknown[]).length) });
    const { run } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" }, [watcher]);
    await run({ interrupts: { before: ["tools"] } });
    expect(ends).toEqual([2]);
    await run({ input: null });
    expect(ends).toEqual([2, 4]);
  });
});

describe("interrupt() inside a hook", () => {
  it("an afterModel interrupt pauses without a fault; the resume value reaches the hook; the model is not called again", async () => {
    const answers: unknown[] = [];
    const approver = plugin(
      { name: "approver", hooks: { afterModel: { observes: ["messages"] } } },
      {
        afterModel: async (state) => {
          const last = (state.messages as AIMessage[]).at(-1)!;
          if (!last.tool_calls?.length) return;
          answers.push(interrupt({ calls: last.tool_calls.map((c) => c.name) }));
        },
      },
    );
    const { run, ran, model, runtime } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" }, [approver]);
    const paused = await run({});
    expect(paused.outcome.error).toBeUndefined();
    expect(paused.outcome.status).toBe("partial");
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(paused.outcome.error).toBeUndefined();
    expect(ran).toEqual([]);
    expect(model.turnsAnswered).toBe(1);
    const resumed = await run({ input: null, command: { resume: { approve: true } } });
    expect(answers).toEqual([{ approve: true }]);
    expect(model.turnsAnswered).toBe(2);
    expect(ran).toEqual(["a"]);
    expect(resumed.outcome.status).toBe("succeeded");
    expect(resumed.turns).toBe(2);
    const messages = (await runtime.getState("t1")).messages as BaseMessage[];
    expect(messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
  });
});

describe("ctx.interrupt (the kernel seam for afterModel pauses)", () => {
  const asking = (answers: unknown[]) =>
    plugin(
      { name: "asker", hooks: { afterModel: { observes: ["messages"] } } },
      {
        afterModel: async (state, ctx) => {
          const last = (state.messages as AIMessage[]).at(-1)!;
          if (!last.tool_calls?.length) return;
          answers.push(ctx.interrupt({ ask: last.tool_calls.map((c) => c.name) }, { journal: [{ name: "echo", status: "requested" }] }));
        },
      },
    );

  it("pauses like interrupt(); the resume value is what it returns; the model is not called again", async () => {
    const answers: unknown[] = [];
    const { run, ran, model } = setup({ turns: [callEcho("a"), { content: "done" }], then: "stop" }, [asking(answers)]);
    const paused = await run({});
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual([]);
    await run({ input: null, command: { resume: "yes" } });
    expect(answers).toEqual(["yes"]);
    expect(model.turnsAnswered).toBe(2);
    expect(ran).toEqual(["a"]);
  });

  it("a resume meant for a static pause before the model step does not answer the hook's question", async () => {
    const answers: unknown[] = [];
    const { run, ran } = setup({ turns: [{ content: "hello" }, callEcho("a"), { content: "done" }], then: "stop" }, [asking(answers)]);
    await run({});
    // Second task: pause before the agent step, then resume it with a value for that pause.
    const paused = await run({ input: "again", interrupts: { before: ["agent"] } });
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    const asked = await run({ input: null, command: { resume: "static pause value" } });
    expect(answers).toEqual([]);
    expect(asked.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual([]);
    await run({ input: null, command: { resume: "for the hook" } });
    expect(answers).toEqual(["for the hook"]);
    expect(ran).toEqual(["a"]);
  });

  it("outside afterModel it is KEEL_ERR_HOOK_INTERRUPT_OUTSIDE_AFTER_MODEL", async () => {
    const early = plugin({ name: "early", hooks: { beforeModel: { observes: ["messages"] } } }, { beforeModel: async (_state, ctx) => void ctx.interrupt("now?") });
    const { run } = setup({ turns: [{ content: "done" }], then: "stop" }, [early]);
    const result = await run({});
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.error?.type).toBe("KEEL_ERR_HOOK_INTERRUPT_OUTSIDE_AFTER_MODEL");
  });
});

describe("pendingNodes (what a paused thread continues with)", () => {
  const task = (name: string, extra: Record<string, unknown>) => ({ id: `${name}-id`, name, path: [] as never, interrupts: [], ...extra }) as never;
  it("adds a task waiting at an interrupt that LangGraph left out of next (it holds a consumed resume write)", () => {
    expect(pendingNodes({ next: [], tasks: [task("agent", { interrupts: [{ id: "i", value: 1 }] })] })).toEqual(["agent"]);
    expect(pendingNodes({ next: ["agent"], tasks: [task("agent", { interrupts: [{ id: "i", value: 1 }] })] })).toEqual(["agent"]);
  });
  it("leaves out a task that ran on after its interrupt (a past checkpoint: it has a result) or failed", () => {
    expect(pendingNodes({ next: [], tasks: [task("agent", { interrupts: [{ id: "i", value: 1 }], result: { messages: [] } })] })).toEqual([]);
    expect(pendingNodes({ next: [], tasks: [task("agent", { interrupts: [{ id: "i", value: 1 }], error: new Error("x") })] })).toEqual([]);
    expect(pendingNodes({ next: ["tools"], tasks: [task("tools", {})] })).toEqual(["tools"]);
  });
});
