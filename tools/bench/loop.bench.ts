import { performance } from "node:perf_hooks";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool as lcTool } from "@langchain/core/tools";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { compose } from "../../kernel/compose/compose.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { KeelTool, Plugin } from "../../kernel/plugin/types.js";
import { ScriptedChatModel, type ScriptedAgent } from "../testing/scripted-model.js";

const TOOL_TURNS = 200;
const REPEATS = 5;
const PLUGINS = 15;

/** `turns` tool-call turns, then a final answer; usage given so no variant pays for estimation. */
function script(turns: number): ScriptedAgent {
  const usage = { input_tokens: 10, output_tokens: 2 };
  return {
    turns: [
      ...Array.from({ length: turns }, () => ({ toolCalls: [{ name: "noop", args: { n: 1 } }], usage })),
      { content: "done", usage },
    ],
  };
}

const noopKeelTool: KeelTool = { name: "noop", description: "does nothing", schema: { type: "object", properties: { n: { type: "number" } } }, invoke: () => "ok" };
const toolsPlugin = definePlugin({
  manifest: { name: "bench-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "bench tool", hooks: {}, config: { type: "object" } },
  tools: [noopKeelTool],
});

/** With `reading`, every state hook observes `messages` and reads it (so enforcement's guarded views are paid for). */
function noopPlugin(i: number, reading = false): Plugin {
  const state = reading ? { observes: ["messages"] } : {};
  const read = reading ? (s: Record<string, unknown>) => void (s.messages as BaseMessage[]).at(-1) : () => undefined;
  return definePlugin({
    manifest: {
      name: `noop-${i}`, version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "no-op on every hook",
      hooks: { beforeAgent: state, beforeModel: state, wrapModelCall: {}, afterModel: state, wrapToolCall: {}, afterAgent: state },
    },
    hooks: {
      beforeAgent: read,
      beforeModel: read,
      wrapModelCall: (req, next) => next(req),
      afterModel: read,
      wrapToolCall: (req, next) => next(req),
      afterAgent: read,
    },
  });
}

type Variant = (turns: number) => Promise<void>;

function keel(plugins: number, options: { reading?: boolean; enforcement?: boolean } = {}): Variant {
  const composition = compose({ name: "bench", plugins: [toolsPlugin, ...Array.from({ length: plugins }, (_, i) => noopPlugin(i, options.reading))] });
  let n = 0;
  return async (turns) => {
    const runtime = createAgentRuntime(composition, {
      model: new ScriptedChatModel({ script: script(turns) }),
      maxTurns: turns + 10,
      ...(options.enforcement === undefined ? {} : { enforcement: options.enforcement }),
    });
    const result = await runtime.run({ threadId: `t${n}`, runId: `r${n++}`, input: "go" });
    if (result.outcome.status !== "succeeded") throw new Error(`keel bench run ended ${result.outcome.status}`);
  };
}

/** The baseline: a hand-built LangGraph model↔tools loop with the same model and tool. */
function bareLangGraph(): Variant {
  let n = 0;
  return async (turns) => {
    const model = new ScriptedChatModel({ script: script(turns) });
    const bound = model.bindTools([{ type: "function", function: { name: "noop", description: "does nothing", parameters: noopKeelTool.schema } }] as never);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (s: { messages: BaseMessage[] }) => ({ messages: [await bound.invoke(s.messages)] }))
      .addNode("tools", async (s: { messages: BaseMessage[] }) => {
        const last = s.messages[s.messages.length - 1] as AIMessage;
        const results = await Promise.all(
          (last.tool_calls ?? []).map(async (c) => new ToolMessage({ tool_call_id: c.id!, name: c.name, content: String(await noopKeelTool.invoke(c.args, {} as never)) })),
        );
        return { messages: results };
      })
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s: { messages: BaseMessage[] }) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
      .addEdge("tools", "agent")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: `b${n++}` }, recursionLimit: 2 * turns + 10 });
  };
}

/** langchain's createAgent with `middlewares` no-op middlewares implementing every hook. */
function langchainCreateAgent(middlewares: number): Variant {
  const noop = lcTool(() => "ok", { name: "noop", description: "does nothing", schema: noopKeelTool.schema as never });
  const middleware = Array.from({ length: middlewares }, (_, i) =>
    createMiddleware({
      name: `noop${i}`,
      beforeAgent: () => undefined,
      beforeModel: () => undefined,
      afterModel: () => undefined,
      afterAgent: () => undefined,
      wrapModelCall: (req, handler) => handler(req),
      wrapToolCall: (req, handler) => handler(req),
    }),
  );
  let n = 0;
  return async (turns) => {
    const agent = createAgent({ model: new ScriptedChatModel({ script: script(turns) }), tools: [noop], middleware, checkpointer: new MemorySaver() } as never);
    await (agent as { invoke: (i: unknown, c: unknown) => Promise<unknown> }).invoke(
      { messages: [{ role: "user", content: "go" }] },
      { configurable: { thread_id: `c${n++}` }, recursionLimit: (2 + middlewares * 4) * turns + 50 },
    );
  };
}

async function time(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Per-turn time: (run of N tool turns − run of 1 tool turn) / (N − 1), so startup is subtracted. */
async function perTurn(variant: Variant): Promise<number> {
  await variant(20); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const long = await time(() => variant(TOOL_TURNS));
    const short = await time(() => variant(1));
    samples.push((long - short) / (TOOL_TURNS - 1));
  }
  return median(samples);
}

export async function benchLoop(): Promise<string[]> {
  const variants: Array<[string, Variant]> = [
    ["bare LangGraph loop (baseline)", bareLangGraph()],
    ["keel, 0 plugins", keel(0)],
    [`keel, ${PLUGINS} no-op plugins`, keel(PLUGINS)],
    ["langchain createAgent, 0 middlewares", langchainCreateAgent(0)],
    [`langchain createAgent, ${PLUGINS} no-op middlewares`, langchainCreateAgent(PLUGINS)],
  ];
  const results: Array<[string, number]> = [];
  for (const [name, variant] of variants) results.push([name, await perTurn(variant)]);
  const baseline = results[0]![1];
  const lines = [`loop: per-turn time over ${TOOL_TURNS} tool turns (median of ${REPEATS}, startup subtracted), ratio vs the bare loop`];
  for (const [name, ms] of results) lines.push(`  ${name.padEnd(44)} ${ms.toFixed(3).padStart(8)} ms/turn  ${(ms / baseline).toFixed(2)}×`);
  const keel15 = results[2]![1];
  const lc15 = results[4]![1];
  lines.push(`  target: keel with ${PLUGINS} plugins ≤ 1.25× the bare loop (now ${(keel15 / baseline).toFixed(2)}×) and faster than createAgent (${(keel15 / lc15).toFixed(2)}× of it)`);
  lines.push(...(await benchEnforcement()));
  return lines;
}

/**
 * The cost of run-time enforcement: the same kernel and stack (15 plugins whose state hooks
 * read `messages`, wrap hooks passing on) with enforcement off (the test-only switch) and on,
 * interleaved so drift hits both alike.
 */
async function benchEnforcement(): Promise<string[]> {
  const off = keel(PLUGINS, { reading: true, enforcement: false });
  const on = keel(PLUGINS, { reading: true, enforcement: true });
  const offTimes: number[] = [];
  const onTimes: number[] = [];
  for (let round = 0; round < 3; round++) {
    offTimes.push(await perTurn(off));
    onTimes.push(await perTurn(on));
  }
  const [offMs, onMs] = [median(offTimes), median(onTimes)];
  return [
    `enforcement: per-turn time, ${PLUGINS} plugins reading \`messages\`, ${TOOL_TURNS} tool turns (median of 3 interleaved rounds)`,
    `  ${"enforcement off (test-only switch)".padEnd(44)} ${offMs.toFixed(3).padStart(8)} ms/turn`,
    `  ${"enforcement on (default)".padEnd(44)} ${onMs.toFixed(3).padStart(8)} ms/turn  ${(onMs / offMs).toFixed(3)}× (target ≤ 1.05×)`,
  ];
}
