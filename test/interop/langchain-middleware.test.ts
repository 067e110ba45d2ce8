import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { ClearToolUsesEdit, contextEditingMiddleware, createMiddleware, piiMiddleware, toolCallLimitMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compose } from "../../kernel/compose/index.js";
import { CompositionError, isKeelError } from "../../kernel/errors.js";
import { fromLangChainMiddleware } from "../../kernel/interop/langchain-middleware.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { loadStack } from "../../tools/stacks/load-stack.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../tools/testing/scripted-model.js";

/** A scripted model that keeps the messages of every call. */
class RecordingModel extends ScriptedChatModel {
  readonly calls: BaseMessage[][] = [];
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]) {
    this.calls.push([...messages]);
    return super._generate(messages, options);
  }
}

const executed: string[] = [];
const lookup = tool(async ({ q }: { q: string }) => {
  executed.push(q);
  return q === "contact" ? "write to jane.doe@example.com" : `found ${q}`;
}, { name: "lookup", description: "Looks something up", schema: z.object({ q: z.string() }) });
const toolsPlugin = definePlugin({ manifest: { name: "lc-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "tools", hooks: {} }, tools: [lookup] });

async function run(plugins: Plugin[], script: ScriptedAgent, input = "go", config: Record<string, Record<string, unknown>> = {}) {
  executed.length = 0;
  const model = new RecordingModel({ script });
  const runtime = createAgentRuntime(compose({ name: "t", plugins: [toolsPlugin, ...plugins] }, { config: [config] }), { model, systemPrompt: "You are terse." });
  const result = await runtime.run({ threadId: "thread-mw", runId: "run-mw", input });
  return { ...result, model };
}

const text = (m: BaseMessage | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content));

describe("fromLangChainMiddleware with LangChain's piiMiddleware", () => {
  it("redacts an e-mail in the user's input before the model sees it, and in the thread's messages (strategy redact)", async () => {
    const pii = fromLangChainMiddleware(piiMiddleware("email", { strategy: "redact" }), { name: "pii-email", hooks: { beforeModel: { mutates: ["messages"] }, afterModel: { mutates: ["messages"] } } });
    const result = await run([pii], { turns: [{ content: "Noted." }] }, "Mail me at john.smith@example.org please");
    const seen = result.model.calls[0]!;
    expect(SystemMessage.isInstance(seen[0]!)).toBe(true);
    expect(text(seen.find((m) => HumanMessage.isInstance(m)))).toBe("Mail me at [REDACTED_EMAIL] please");
    expect(text(result.messages.find((m) => HumanMessage.isInstance(m)))).toBe("Mail me at [REDACTED_EMAIL] please");
    expect(result.outcome.status).toBe("succeeded");
  });

  it("its contextSchema is the plugin's options: applyToOutput masks the model's answer; applyToToolResults masks tool output before the next call", async () => {
    const pii = fromLangChainMiddleware(piiMiddleware("email", { strategy: "mask", applyToInput: false }), { name: "pii-email", hooks: { beforeModel: { mutates: ["messages"] }, afterModel: { mutates: ["messages"] } } });
    expect(pii.manifest.config).toMatchObject({ type: "object", properties: { applyToOutput: { type: "boolean" }, applyToToolResults: { type: "boolean" } } });
    const result = await run(
      [pii],
      { turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: { q: "contact" } }] }, { content: "Her address is jane.doe@example.com." }] },
      "Who?",
      { "pii-email": { applyToOutput: true, applyToToolResults: true } },
    );
    expect(text(result.model.calls[1]!.find((m) => ToolMessage.isInstance(m)))).toBe("write to j***@example.com");
    expect(result.outcome.text).toBe("Her address is j***@example.com.");
    expect(text(result.messages.find((m) => ToolMessage.isInstance(m)))).toBe("write to j***@example.com");
  });

  it("strategy block raises LangChain's PIIDetectionError: the run fails naming the plugin, the model never sees the input", async () => {
    const pii = fromLangChainMiddleware(piiMiddleware("email", { strategy: "block" }), { name: "pii-block", hooks: { beforeModel: { mutates: ["messages"] }, afterModel: { mutates: ["messages"] } } });
    const result = await run([pii], { turns: [{ content: "never" }] }, "I am bob@example.com");
    expect(result.model.calls).toHaveLength(0);
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.error?.type).toBe("KEEL_ERR_PLUGIN_FAILED");
    expect(result.outcome.error?.message).toBe("plugin `pii-block` failed in beforeModel: PII detected: email found 1 occurrence(s)");
  });

  it("enforcement applies: without `messages` in mutates its write is refused (KEEL_ERR_HOOK_UNDECLARED_MUTATION)", async () => {
    const pii = fromLangChainMiddleware(piiMiddleware("email"), { name: "pii-undeclared", observes: ["messages"] });
    const result = await run([pii], { turns: [{ content: "x" }] }, "I am bob@example.com");
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(result.outcome.error?.message).toMatch(/plugin `pii-undeclared` wrote `messages` in beforeModel/);
  });

  it("the race check covers it: two unordered rewriters of `messages` in beforeModel do not compose; requiresBefore fixes it", () => {
    const other = definePlugin({
      manifest: { name: "rewriter", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "rewrites", hooks: { beforeModel: { mutates: ["messages"] } } },
      hooks: { beforeModel: () => undefined },
    });
    const part = { name: "pii-email", hooks: { beforeModel: { mutates: ["messages"] }, afterModel: { mutates: ["messages"] } } };
    let caught: unknown;
    try {
      compose({ name: "t", plugins: [fromLangChainMiddleware(piiMiddleware("email"), part), other] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CompositionError);
    const race = (caught as CompositionError).problems.find((p) => p.code === "KEEL_ERR_COMPOSE_RACE");
    expect(race?.plugins).toEqual(expect.arrayContaining(["pii-email", "rewriter"]));
    const ordered = compose({ name: "t", plugins: [other, fromLangChainMiddleware(piiMiddleware("email"), { ...part, requiresBefore: ["rewriter"] })] });
    expect(ordered.order).toEqual(["rewriter", "pii-email"]);
  });
});

describe("fromLangChainMiddleware with LangChain's toolCallLimitMiddleware", () => {
  const limit = (exitBehavior: "end" | "continue") =>
    fromLangChainMiddleware(toolCallLimitMiddleware({ runLimit: 1, exitBehavior }), { name: "tool-call-limit", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"] } } }, { stopReason: "tool_call_limit" });

  it("its state fields are channels it owns, read and written by its state hooks; jumping hooks also write stopReasons", () => {
    const plugin = limit("end");
    expect(Object.keys(plugin.manifest.channels ?? {}).sort()).toEqual(["runToolCallCount", "threadToolCallCount"]);
    expect(plugin.manifest.channels!.threadToolCallCount).toMatchObject({ reducer: "replace", schema: { type: "object", additionalProperties: { type: "number" } } });
    expect(plugin.manifest.hooks.afterModel!.mutates).toEqual(["messages", "threadToolCallCount", "runToolCallCount", "stopReasons"]);
    expect(plugin.manifest.hooks.afterAgent!.mutates).toEqual(["threadToolCallCount", "runToolCallCount"]);
  });

  it("exitBehavior end: the call over the limit is not run, jumpTo end is a stop that ends the run", async () => {
    const result = await run([limit("end")], {
      turns: [
        { toolCalls: [{ name: "lookup", id: "c1", args: { q: "a" } }] },
        { toolCalls: [{ name: "lookup", id: "c2", args: { q: "b" } }] },
        { content: "never reached" },
      ],
    });
    expect(executed).toEqual(["a"]);
    expect(result.model.calls).toHaveLength(2);
    expect(result.outcome.status).toBe("partial");
    expect(result.outcome.stopReasons).toEqual([{ reason: "tool_call_limit", by: "tool-call-limit", turn: 2, detail: "LangChain middleware ToolCallLimitMiddleware jumped to end in afterModel" }]);
    expect(result.outcome.text).toBe("Tool call limit reached: run limit exceeded (2/1 calls).");
    const blocked = result.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "c2") as ToolMessage;
    expect(blocked.status).toBe("error");
    expect(blocked.content).toBe("Tool call limit exceeded. Do not make additional tool calls.");
    expect(blocked.id).toBe("run-mw:tool-call-limit:afterModel:2:1");
    // afterAgent reset the run count, as in LangChain; the thread count stays.
    expect(result.values.runToolCallCount).toEqual({});
    expect(result.values.threadToolCallCount).toEqual({ __all__: 1 });
  });

  it("exitBehavior continue: the blocked call gets LangChain's error result and the run goes on", async () => {
    const result = await run([limit("continue")], {
      turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: { q: "a" } }, { name: "lookup", id: "c2", args: { q: "b" } }] }, { content: "Done with one." }],
    });
    expect(executed).toEqual(["a"]);
    const byId = Object.fromEntries(result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m]));
    expect(byId.c1!.content).toBe("found a");
    expect(byId.c2!.status).toBe("error");
    expect(byId.c2!.content).toBe("Tool call limit exceeded. Do not make additional tool calls.");
    expect(result.outcome.status).toBe("succeeded");
    expect(result.outcome.text).toBe("Done with one.");
  });
});

describe("fromLangChainMiddleware in stacks", () => {
  it("composes into the built-in lead stack with a placement; without one the race check refuses it", async () => {
    const part = (order?: "pre") => ({ name: "tool-call-limit", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"], ...(order ? { order } : {}) } } });
    const unplaced = await loadStack("lead", { plugins: [fromLangChainMiddleware(toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" }), part())] });
    let caught: unknown;
    try {
      compose(unplaced.stack, { plugins: unplaced.plugins });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CompositionError);
    expect((caught as CompositionError).problems.some((p) => p.code === "KEEL_ERR_COMPOSE_RACE" && p.plugins?.includes("tool-call-limit"))).toBe(true);
    const placed = await loadStack("lead", { plugins: [fromLangChainMiddleware(toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" }), part("pre"))] });
    expect(compose(placed.stack, { plugins: placed.plugins }).hooks.afterModel[0]).toBe("tool-call-limit");
  });

  it("docs/langchain.md's side-by-side pair (piiMiddleware and toolCallLimitMiddleware) composes and runs: the input is redacted, the limit stops the run", async () => {
    const plugins = [
      fromLangChainMiddleware(piiMiddleware("email", { strategy: "redact" }), { name: "pii-email", hooks: { beforeModel: { mutates: ["messages"] } } }),
      fromLangChainMiddleware(toolCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" }), { name: "tool-call-limit", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"] } } }),
    ];
    const result = await run(plugins, { turns: [{ toolCalls: [{ name: "lookup", args: { q: "a" } }] }, { toolCalls: [{ name: "lookup", args: { q: "b" } }] }] }, "I am jane@example.com");
    expect(text(result.model.calls[0]!.find((m) => HumanMessage.isInstance(m)))).toBe("I am [REDACTED_EMAIL]");
    expect(result.outcome.stopReasons.map((r) => r.reason)).toEqual(["jump_to_end"]);
    expect(executed).toEqual(["a"]);
  });

  it("a second instance sharing the first one's state fields declares no channels of its own and orders itself after it", async () => {
    const all = fromLangChainMiddleware(toolCallLimitMiddleware({ runLimit: 3 }), { name: "limit-all", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"] } } });
    const shared = ["threadToolCallCount", "runToolCallCount"];
    const one = fromLangChainMiddleware(toolCallLimitMiddleware({ toolName: "lookup", runLimit: 1 }), {
      name: "limit-lookup",
      channels: {},
      requiresBefore: ["limit-all"],
      hooks: { afterModel: { observes: ["messages"], mutates: ["messages", ...shared] }, afterAgent: { mutates: shared } },
    });
    const result = await run([all, one], { turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: { q: "a" } }, { name: "lookup", id: "c2", args: { q: "b" } }] }, { content: "ok" }] });
    expect(executed).toEqual(["a"]);
    expect(result.values.threadToolCallCount).toEqual({ __all__: 2, lookup: 1 });
  });
});

describe("fromLangChainMiddleware: the mapping of createMiddleware hooks", () => {
  it("jumpTo end from beforeModel ends the run before any model call", async () => {
    const gate = createMiddleware({ name: "Gate", beforeModel: { canJumpTo: ["end"], hook: () => ({ jumpTo: "end" as const }) } });
    const result = await run([fromLangChainMiddleware(gate, { name: "gate" })], { turns: [{ content: "never" }] });
    expect(result.model.calls).toHaveLength(0);
    expect(result.outcome.stopReasons).toEqual([{ reason: "jump_to_end", by: "gate", turn: 1, detail: "LangChain middleware Gate jumped to end in beforeModel" }]);
  });

  it("a jump target the hook does not declare, or one Keel cannot take (model from afterModel), fails with KEEL_ERR_LANGCHAIN_JUMP", async () => {
    const undeclared = createMiddleware({ name: "Undeclared", afterModel: () => ({ jumpTo: "end" as const }) });
    const again = createMiddleware({ name: "Again", afterModel: { canJumpTo: ["model"], hook: () => ({ jumpTo: "model" as const }) } });
    for (const [middleware, pattern] of [
      [undeclared, /jumped to `end` in afterModel, which its hook does not declare in canJumpTo \(none\)/],
      [again, /jumped to `model` in afterModel, which Keel's loop cannot do/],
    ] as const) {
      const result = await run([fromLangChainMiddleware(middleware, { name: "jumper" })], { turns: [{ content: "x" }] });
      expect(result.outcome.error?.type).toBe("KEEL_ERR_LANGCHAIN_JUMP");
      expect(result.outcome.error?.message).toMatch(pattern);
    }
  });

  it("state hooks see their own fields at the Zod default, and write them", async () => {
    const counter = createMiddleware({
      name: "Counter",
      stateSchema: z.object({ modelCalls: z.number().default(0) }),
      afterModel: (state) => ({ modelCalls: state.modelCalls + 1 }),
    });
    const result = await run([fromLangChainMiddleware(counter, { name: "counter" })], { turns: [{ toolCalls: [{ name: "lookup", args: { q: "a" } }] }, { content: "ok" }] });
    expect(result.values.modelCalls).toBe(2);
  });

  it("wrapModelCall: a changed systemPrompt reaches the model when model.request is declared, and is refused when not", async () => {
    const prompt = createMiddleware({ name: "Prompt", wrapModelCall: (request, handler) => handler({ ...request, systemPrompt: `${request.systemPrompt} Answer in French.` }) });
    const declared = await run([fromLangChainMiddleware(prompt, { name: "prompt", hooks: { wrapModelCall: { mutates: ["model.request"] } } })], { turns: [{ content: "Oui." }] });
    expect(text(declared.model.calls[0]![0])).toBe("You are terse. Answer in French.");
    expect(declared.outcome.text).toBe("Oui.");
    const refused = await run([fromLangChainMiddleware(prompt, { name: "prompt" })], { turns: [{ content: "Oui." }] });
    expect(refused.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(refused.model.calls).toHaveLength(0);
  });

  it("wrapModelCall editing the request in place (LangChain's contextEditingMiddleware) reaches the model, the thread keeps the original", async () => {
    const editing = contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 1 }, keep: { messages: 0 } })] });
    const script: ScriptedAgent = { turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: { q: "a" } }] }, { content: "done" }] };
    const declared = await run([fromLangChainMiddleware(editing, { name: "context-editing", hooks: { wrapModelCall: { mutates: ["model.request"] } } })], script);
    expect(text(declared.model.calls[1]!.find((m) => ToolMessage.isInstance(m)))).toBe("[cleared]");
    expect(text(declared.messages.find((m) => ToolMessage.isInstance(m)))).toBe("found a");
    const undeclared = await run([fromLangChainMiddleware(editing, { name: "context-editing" })], script);
    expect(undeclared.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(undeclared.model.calls).toHaveLength(1);
  });

  it("wrapToolCall editing the tool call's arguments in place reaches the tool (tool.request declared)", async () => {
    const inPlace = createMiddleware({
      name: "InPlace",
      wrapToolCall: (request, handler) => {
        request.toolCall.args.q = "edited";
        return handler(request);
      },
    });
    await run([fromLangChainMiddleware(inPlace, { name: "in-place", hooks: { wrapToolCall: { mutates: ["tool.request"] } } })], { turns: [{ toolCalls: [{ name: "lookup", args: { q: "a" } }] }, { content: "ok" }] });
    expect(executed).toEqual(["edited"]);
    const refused = await run([fromLangChainMiddleware(inPlace, { name: "in-place" })], { turns: [{ toolCalls: [{ name: "lookup", args: { q: "a" } }] }, { content: "ok" }] });
    expect(executed).toEqual([]);
    expect(refused.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
  });

  it("wrapModelCall sees the LangChain tool itself, and a pass-through needs no declaration", async () => {
    const seen: unknown[] = [];
    const spy = createMiddleware({ name: "Spy", wrapModelCall: (request, handler) => { seen.push(...request.tools); return handler(request); } });
    const result = await run([fromLangChainMiddleware(spy, { name: "spy" })], { turns: [{ content: "ok" }] });
    expect(seen).toEqual([lookup]);
    expect(result.outcome.status).toBe("succeeded");
  });

  it("wrapToolCall: changed arguments reach the tool (tool.request declared); a Command result is KEEL_ERR_LANGCHAIN_UNSUPPORTED", async () => {
    const upper = createMiddleware({ name: "Upper", wrapToolCall: (request, handler) => handler({ ...request, toolCall: { ...request.toolCall, args: { q: String(request.toolCall.args.q).toUpperCase() } } }) });
    const ok = await run([fromLangChainMiddleware(upper, { name: "upper", hooks: { wrapToolCall: { mutates: ["tool.request"] } } })], { turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: { q: "abc" } }] }, { content: "done" }] });
    expect(executed).toEqual(["ABC"]);
    expect(text(ok.messages.find((m) => ToolMessage.isInstance(m)))).toBe("found ABC");
    const command = createMiddleware({ name: "Cmd", wrapToolCall: () => new Command({ goto: "model" }) });
    const failed = await run([fromLangChainMiddleware(command, { name: "cmd", hooks: { wrapToolCall: { mutates: ["tool.response"] } } })], { turns: [{ toolCalls: [{ name: "lookup", args: { q: "x" } }] }, { content: "done" }] });
    expect(failed.outcome.error?.type).toBe("KEEL_ERR_LANGCHAIN_UNSUPPORTED");
    expect(failed.outcome.error?.message).toMatch(/returned a LangGraph Command in wrapToolCall/);
  });

  it("a manifest part that declares a hook the middleware lacks, or no name, is KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", () => {
    const codes: unknown[] = [];
    for (const attempt of [
      () => fromLangChainMiddleware(piiMiddleware("email"), { name: "pii", hooks: { wrapToolCall: {} } }),
      () => fromLangChainMiddleware(piiMiddleware("email"), {} as never),
      () => fromLangChainMiddleware({} as never, { name: "x" }),
    ]) {
      try {
        attempt();
      } catch (error) {
        codes.push(isKeelError(error) ? error.code : error);
      }
    }
    expect(codes).toEqual(["KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", "KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", "KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID"]);
  });

  it("an AIMessage from afterModel keeps its place: the run's answer is the middleware's", async () => {
    const rewrite = createMiddleware({
      name: "Rewrite",
      afterModel: (state) => {
        const last = state.messages.at(-1) as AIMessage;
        return { messages: [new AIMessage({ id: last.id, content: "rewritten" })] };
      },
    });
    const result = await run([fromLangChainMiddleware(rewrite, { name: "rewrite", hooks: { afterModel: { mutates: ["messages"] } } })], { turns: [{ content: "original" }] });
    expect(result.outcome.text).toBe("rewritten");
  });
});
