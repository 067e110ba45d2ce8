import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { reduceChannel } from "../../kernel/channels/reducers.js";
import { isKeelError, CompositionError } from "../../kernel/errors.js";
import { RunScope, steppingClock } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import { plugin, runWith, tool, toolsPlugin } from "./harness.js";

/** Guarded wrap layers (no `mutates`) around an inner layer `middle`, in the order outer → middle → inner. */
async function layered(middle: ReturnType<typeof plugin>) {
  const passOn = (name: string) => plugin({ name, hooks: { wrapToolCall: {}, wrapModelCall: {} } }, { wrapToolCall: (r, next) => next(r), wrapModelCall: (r, next) => next(r) });
  const echo = toolsPlugin(tool("echo", () => "secret"));
  return runWith([echo, passOn("outer"), middle, passOn("inner")], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "done" }] }, {
    order: [
      ["outer", middle.manifest.name],
      [middle.manifest.name, "inner"],
    ],
  });
}

describe("wrap-hook fingerprints shared between layers", () => {
  it("a guarded layer outside a declared in-place editor passes: a fingerprint is never carried across a layer that may change the response", async () => {
    const redactor = plugin(
      { name: "redactor", hooks: { wrapToolCall: { mutates: ["tool.response"] } } },
      {
        wrapToolCall: async (request, next) => {
          const response = await next(request);
          response.content = "redacted";
          return response;
        },
      },
    );
    const run = await layered(redactor);
    expect(run.outcome.status).toBe("succeeded");
    expect(run.messages.map((m) => m.content)).toContain("redacted");
  });

  it("an undeclared in-place edit between two guarded layers is caught and blamed on the editor", async () => {
    const editor = plugin(
      { name: "editor", hooks: { wrapToolCall: {} } },
      {
        wrapToolCall: async (request, next) => {
          const response = await next(request);
          response.content = "redacted";
          return response;
        },
      },
    );
    const run = await layered(editor);
    expect(run.outcome.error).toMatchObject({ type: "KEEL_ERR_HOOK_UNDECLARED_MUTATION" });
    expect(run.outcome.error?.message).toContain("plugin `editor` changed the response in place in wrapToolCall");
    expect(run.messages.map((m) => m.content)).not.toContain("redacted");
  });
});

describe("the model request as sent", () => {
  it("reaches the model as a ChatPromptValue holding the request's own list (LangChain does not re-coerce the history from an array)", async () => {
    const model = new ScriptedChatModel({ script: { turns: [{ content: "one" }] } });
    const inputs: unknown[] = [];
    const invoke = model.invoke.bind(model);
    model.invoke = ((input: unknown, options?: unknown) => (inputs.push(input), invoke(input as never, options as never))) as typeof model.invoke;
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [] }), { model, checkpointer: false });
    const requests: BaseMessage[][] = [];
    const scope = new RunScope("r", "t", steppingClock(0), { modelRequest: (r) => requests.push(r.messages) });
    expect((await runtime.run({ threadId: "t", runId: "r", input: "go", scope })).outcome.status).toBe("succeeded");
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toBeInstanceOf(ChatPromptValue);
    expect((inputs[0] as ChatPromptValue).messages).toBe(requests[0]);
  });
});

describe("the model request as recorded", () => {
  it("is the frozen list the model was sent (no copy of the history per turn), or a copy with enforcement off", async () => {
    const echo = toolsPlugin(tool("echo", () => "ok"));
    const script = () => ({ turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "done" }] });
    const on = await runWith([echo], script());
    expect(on.requests.map((r) => Object.isFrozen(r.messages))).toEqual([true, true]);
    expect(on.requests[1]!.messages.map((m) => m.content)).toEqual(["go", "", "ok"]);
    const off = await runWith([echo], script(), { runtime: { enforcement: false } });
    expect(off.requests.map((r) => Object.isFrozen(r.messages))).toEqual([false, false]);
    expect(off.requests[1]!.messages.map((m) => m.content)).toEqual(["go", "", "ok"]);
  });
});

describe("enforcement details", () => {
  it("freezes what a thread held before this run: an observer cannot edit an earlier run's message", async () => {
    let runs = 0;
    const editor = plugin(
      { name: "editor", hooks: { beforeModel: { observes: ["messages"] } } },
      {
        beforeModel: (state) => {
          if (++runs === 2) (state.messages as BaseMessage[])[0]!.content = "rewritten";
        },
      },
    );
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [editor] }), {
      model: new ScriptedChatModel({ script: { turns: [{ content: "one" }, { content: "two" }] } }),
      checkpointer: new MemorySaver(),
    });
    expect((await runtime.run({ threadId: "t", runId: "r1", input: "first" })).outcome.status).toBe("succeeded");
    const second = await runtime.run({ threadId: "t", runId: "r2", input: "second" });
    expect(second.outcome.error).toMatchObject({ type: "KEEL_ERR_HOOK_UNDECLARED_MUTATION" });
    expect(second.outcome.error?.message).toContain("plugin `editor`");
    expect(second.messages[0]!.content).toBe("first");
  });

  it("refuses an in-place edit even of a channel the hook mutates (state changes go through updates)", async () => {
    const pusher = plugin(
      { name: "pusher", hooks: { beforeModel: { mutates: ["messages"] } } },
      { beforeModel: (state) => void (state.messages as BaseMessage[]).push(new HumanMessage({ content: "x", id: "x" })) },
    );
    const runtime = createAgentRuntime(compose({ name: "t", plugins: [pusher] }), { model: new ScriptedChatModel({ script: { turns: [{ content: "ok" }] } }) });
    const run = await runtime.run({ threadId: "t", runId: "r", input: "go" });
    expect(run.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(run.outcome.error?.message).toContain("`messages`");
    expect(run.outcome.error?.message).toContain("beforeModel");
  });

  it("sum refuses non-numbers with KEEL_ERR_CHANNEL_REDUCER instead of replacing", () => {
    expect(reduceChannel("sum", { a: 1 }, { a: 2, b: 3 })).toEqual({ a: 3, b: 3 });
    for (const bad of [{ a: "2" }, { a: Number.NaN }, "x", { a: { b: null } }]) {
      let error: unknown;
      try {
        reduceChannel("sum", { a: 1 }, bad);
      } catch (e) {
        error = e;
      }
      expect(isKeelError(error) && error.code).toBe("KEEL_ERR_CHANNEL_REDUCER");
    }
    expect(() => reduceChannel("sum", 1, { a: 1 })).toThrow(/cannot add an object to a number/);
  });

  it("counts every wrap hook's read of its response in the race check (an unordered rewriter races)", () => {
    const rewriter = plugin({ name: "rewriter", hooks: { wrapToolCall: { mutates: ["tool.response"] } } }, { wrapToolCall: (r, next) => next(r) });
    const reader = plugin({ name: "reader", hooks: { wrapToolCall: {} } }, { wrapToolCall: (r, next) => next(r) });
    let error: unknown;
    try {
      compose({ name: "t", plugins: [reader, rewriter] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CompositionError);
    expect((error as CompositionError).problems).toMatchObject([{ code: "KEEL_ERR_COMPOSE_RACE", plugins: ["reader", "rewriter"], channel: "tool.response", hook: "wrapToolCall" }]);
    expect(() => compose({ name: "t", plugins: [reader, rewriter], order: [["reader", "rewriter"]] })).not.toThrow();
  });
});
