import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { Hooks } from "../../kernel/plugin/types.js";
import { plugin, runWith, tool, toolsPlugin } from "./harness.js";

/** A probe implementing all six hooks, logging entry and exit of each. */
function probe(name: string, log: string[], requiresBefore: string[] = []) {
  const hooks: Hooks = {
    beforeAgent: () => void log.push(`${name}.beforeAgent`),
    beforeModel: () => void log.push(`${name}.beforeModel`),
    wrapModelCall: async (req, next) => {
      log.push(`${name}.wrapModelCall>`);
      const res = await next(req);
      log.push(`${name}.wrapModelCall<`);
      return res;
    },
    afterModel: () => void log.push(`${name}.afterModel`),
    wrapToolCall: async (req, next) => {
      log.push(`${name}.wrapToolCall>`);
      const res = await next(req);
      log.push(`${name}.wrapToolCall<`);
      return res;
    },
    afterAgent: () => void log.push(`${name}.afterAgent`),
  };
  return plugin({ name, requiresBefore }, hooks);
}

describe("hook dispatch (LangChain v1 semantics)", () => {
  it("runs before* in order, after* reversed and wraps as an onion, first = outermost", async () => {
    const log: string[] = [];
    const echo = toolsPlugin(tool("echo", () => "ok"));
    // Listed c, a, b but ordered a → b → c by declarations.
    await runWith([probe("c", log, ["b"]), probe("a", log), probe("b", log, ["a"]), echo], {
      turns: [{ toolCalls: [{ name: "echo", args: {} }] }, { content: "done" }],
    });
    const turn1 = ["a.beforeModel", "b.beforeModel", "c.beforeModel", "a.wrapModelCall>", "b.wrapModelCall>", "c.wrapModelCall>", "c.wrapModelCall<", "b.wrapModelCall<", "a.wrapModelCall<", "c.afterModel", "b.afterModel", "a.afterModel"];
    const tools = ["a.wrapToolCall>", "b.wrapToolCall>", "c.wrapToolCall>", "c.wrapToolCall<", "b.wrapToolCall<", "a.wrapToolCall<"];
    expect(log).toEqual(["a.beforeAgent", "b.beforeAgent", "c.beforeAgent", ...turn1, ...tools, ...turn1, "c.afterAgent", "b.afterAgent", "a.afterAgent"]);
  });

  it("applies each state hook's update before the next hook runs", async () => {
    const seen: unknown[] = [];
    const owner = plugin(
      { name: "owner", channels: { note: { schema: { type: "string" }, reducer: "replace" } }, hooks: { beforeModel: { mutates: ["note"] } } },
      { beforeModel: (_s, ctx) => ({ note: `turn ${ctx.turn}` }) },
    );
    const reader = plugin({ name: "reader", requiresBefore: ["owner"], hooks: { beforeModel: { observes: ["note"] } } }, { beforeModel: (s) => void seen.push(s.note) });
    await runWith([owner, reader], { turns: [{ content: "hi" }] });
    expect(seen).toEqual(["turn 1"]);
  });

  it("shows a hook only the channels it observes or mutates", async () => {
    const views: string[][] = [];
    const narrow = plugin({ name: "narrow", hooks: { beforeModel: { observes: ["usage"] } } }, { beforeModel: (s) => void views.push(Object.keys(s).sort()) });
    const blind = plugin({ name: "blind" }, { afterModel: (s) => void views.push(Object.keys(s).sort()) });
    await runWith([narrow, blind], { turns: [{ content: "hi" }] });
    expect(views).toEqual([["usage"], []]);
  });

  it("fails the run with KEEL_ERR_HOOK_UNDECLARED_MUTATION naming the plugin and hook", async () => {
    const rogue = plugin({ name: "rogue", hooks: { afterModel: { observes: ["messages"] } } }, { afterModel: () => ({ stopReasons: [{ reason: "x", by: "rogue" }] }) });
    const run = await runWith([rogue], { turns: [{ content: "hi" }] });
    expect(run.outcome.status).toBe("failed");
    expect(run.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(run.outcome.error?.message).toContain("`rogue`");
    expect(run.outcome.error?.message).toContain("afterModel");
    expect(run.events.some((e) => e.event === "error" && (e.data as { error: string }).error === "KEEL_ERR_HOOK_UNDECLARED_MUTATION")).toBe(true);
  });

  it("checks ctx.update in wrap hooks against mutates", async () => {
    const rogue = plugin({ name: "rogue" }, { wrapModelCall: async (req, next, ctx) => {
      ctx.update({ usage: { lead: { inputTokens: 1, outputTokens: 0, totalTokens: 1 } } });
      return next(req);
    } });
    const run = await runWith([rogue], { turns: [{ content: "hi" }] });
    expect(run.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
  });

  it("fails a hook that catches its own rule violation (an undeclared ctx.update, next() twice, another request passed on), and one that swallows an inner hook's", async () => {
    const swallow = (body: (req: unknown, next: (r?: unknown) => Promise<unknown>, ctx: { update(u: Record<string, unknown>): void }) => Promise<unknown>) => body;
    const catching = {
      update: swallow(async (req, next, ctx) => {
        try {
          ctx.update({ usage: { lead: { inputTokens: 1, outputTokens: 0, totalTokens: 1 } } });
        } catch {
          // swallowed: nothing was written, but the rule was broken
        }
        return next(req);
      }),
      twice: swallow(async (req, next) => {
        const first = await next(req);
        try {
          return await next(req);
        } catch {
          return first;
        }
      }),
      another: swallow(async (req, next) => {
        try {
          return await next({ ...(req as object), messages: [] });
        } catch {
          return next(req);
        }
      }),
    };
    const expected = { update: "KEEL_ERR_HOOK_UNDECLARED_MUTATION", twice: "KEEL_ERR_HOOK_NEXT_TWICE", another: "KEEL_ERR_HOOK_UNDECLARED_MUTATION" };
    for (const [name, wrapModelCall] of Object.entries(catching)) {
      const rogue = plugin({ name: "rogue" }, { wrapModelCall: wrapModelCall as never });
      const run = await runWith([rogue], { turns: [{ content: "a" }, { content: "b" }] });
      expect(run.outcome.status, name).toBe("failed");
      expect(run.outcome.error?.type, name).toBe(expected[name as keyof typeof expected]);
      expect(run.outcome.error?.message, name).toContain("plugin `rogue`");
    }
    // An outer hook that swallows the inner one's violation does not get the run past it either.
    const outer = plugin({ name: "outer" }, { wrapModelCall: async (req, next) => {
      try {
        return await next(req);
      } catch {
        return new AIMessage("swallowed");
      }
    } });
    const inner = plugin({ name: "rogue", requiresBefore: ["outer"] }, { wrapModelCall: catching.update as never });
    const nested = await runWith([outer, inner], { turns: [{ content: "a" }] });
    expect(nested.outcome.error?.type).toBe("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
    expect(nested.outcome.error?.message).toContain("plugin `rogue`");
  });

  it("turns a plain exception into KEEL_ERR_PLUGIN_FAILED without crashing", async () => {
    const broken = plugin({ name: "broken" }, { beforeModel: () => { throw new Error("boom"); } });
    const run = await runWith([broken], { turns: [{ content: "never" }] });
    expect(run.outcome.status).toBe("failed");
    expect(run.outcome.error).toEqual({ type: "KEEL_ERR_PLUGIN_FAILED", message: "plugin `broken` failed in beforeModel: boom", retryable: false });
    expect(run.requests).toHaveLength(0);
  });

  it("refuses a second next() unless the hook declares retries", async () => {
    const twice = (retries: boolean) =>
      plugin({ name: "twice", hooks: { wrapModelCall: { retries } } }, { wrapModelCall: async (req, next) => { await next(req); return next(req); } });
    const refused = await runWith([twice(false)], { turns: [{ content: "a" }, { content: "b" }] });
    expect(refused.outcome.error?.type).toBe("KEEL_ERR_HOOK_NEXT_TWICE");
    const allowed = await runWith([twice(true)], { turns: [{ content: "a" }, { content: "b" }] });
    expect(allowed.outcome.status).toBe("succeeded");
    expect(allowed.outcome.text).toBe("b");
    expect(allowed.turns).toBe(1);
    expect(allowed.requests.map((r) => r.turn)).toEqual([1, 1]);
  });

  it("does not blame an outer wrap hook for an inner plugin's error", async () => {
    const outer = plugin({ name: "outer" }, { wrapToolCall: (req, next) => next(req) });
    const inner = plugin({ name: "inner", requiresBefore: ["outer"] }, { wrapToolCall: () => { throw new Error("inner broke"); } });
    const run = await runWith([outer, inner, toolsPlugin(tool("echo", () => "x"))], { turns: [{ toolCalls: [{ name: "echo", args: {} }] }] });
    expect(run.outcome.error?.message).toBe("plugin `inner` failed in wrapToolCall: inner broke");
  });

  it("drops updates an inner hook made in an attempt that failed, so a retry applies them once", async () => {
    let attempt = 0;
    const retrier = plugin({ name: "retrier", hooks: { wrapModelCall: { retries: true } } }, { wrapModelCall: async (req, next) => {
      try {
        return await next(req);
      } catch {
        return next(req);
      }
    } });
    const marker = plugin(
      { name: "marker", requiresBefore: ["retrier"], channels: { marks: { schema: { type: "array" }, reducer: "append" } }, hooks: { wrapModelCall: { mutates: ["marks"] } } },
      { wrapModelCall: async (req, next, ctx) => {
        ctx.update({ marks: [`attempt ${++attempt}`] });
        return next(req);
      } },
    );
    const run = await runWith([retrier, marker], { turns: [{ content: "ok" }] }, { faults: [{ agent: "lead", turn: 1, error: { status: 503, message: "busy" } }] });
    expect(run.outcome.status).toBe("succeeded");
    expect(run.values.marks).toEqual(["attempt 2"]);
  });
});
