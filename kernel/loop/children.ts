import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import type { Composition } from "../compose/types.js";
import { TOKEN_ALLOWANCE_PORT, type AgentsPort, type ChildAgentRequest, type ChildAgentResult, type ChildStep, type TokenAllowancePort } from "../ports/agents.js";
import { childFence } from "../ports/fence.js";
import { buildPort, portProvider } from "../ports/resolve.js";
import type { TokenUsage } from "./normalize.js";
import { childStreamsTokens } from "./stream-graph.js";
import { RunScope, systemClock, type Clock, type JournalRecord } from "./run-scope.js";
import { createAgentRuntime } from "./runtime.js";
import type { SummarizeOption } from "./summarize.js";

export type ConfigLayer = Record<string, Record<string, unknown>>;

export interface ChildRunnerOptions {
  /**
   * Compose the subagent stack with extra config layers appended (later wins). The host
   * passes its own layers (request config, `subagentConfig`) inside; the runner appends the
   * lease's allowance as the token-budget `limit` (the option layers).
   * Hosts compose with `composeSubagentStack` (tools/stacks/subagent-stack.ts), which derives
   * the default token-budget `limit` from the composed stack (summarization or not).
   */
  composeChild(extraLayers: readonly ConfigLayer[]): Composition;
  /** A fresh model per child instance (scripted models keep one cursor per instance). */
  modelFor(agentPath: string, subagentType: string): BaseChatModel;
  /** Subagent types the host can run. */
  types: readonly string[];
  /** Where children checkpoint (default: one in-memory saver for every child of this runner). */
  checkpointer?: BaseCheckpointSaver;
  /** The children's `ctx.summarize` (default: the deterministic extractive summary). */
  summarize?: SummarizeOption;
  /**
   * The parent run's scope, so a child's events, journal entries and model requests
   * interleave with the parent's in one order. Without one, a child gets a scope of its own.
   */
  scopeFor?(runId: string): RunScope | undefined;
  clock?: Clock;
  /** Called with every finished child (e.g. to put its receipts into a run report). */
  onChildEnd?(agentPath: string, result: ChildAgentResult, runId: string): void;
  /**
   * Host-provided ports every child gets, as the lead's runtime gets them (e.g. the run
   * user's `item-store` view: a child's plugins read and write the same long-term memory).
   * As for the lead, a supplied port is used instead of one the stack would build; `agents`
   * is never passed on (children do not delegate).
   */
  ports?: Readonly<Record<string, unknown>>;
}

/** Run `fn` with no ambient LangChain/LangGraph run config. */
function detached<T>(fn: () => Promise<T>): Promise<T> {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, fn) as Promise<T>;
}

const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

function addUsage(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  if (!b) return a;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, totalTokens: a.totalTokens + b.totalTokens };
}

type JournalInput = Omit<JournalRecord, "seq" | "at" | "runId">;

const isOwnEnd = (entry: JournalInput, agentPath: string) => entry.agent === agentPath && entry.kind === "lifecycle" && entry.name === "end";

/**
 * The parent's scope, seen by one child: every method and counter is the parent's (one event
 * and journal sequence), and the child's own journal entries are also reported as steps.
 * `holdEnd` receives the child's own lifecycle `end` entry instead of the journal (the caller
 * writes it later, with the status it judged).
 */
function observedScope(scope: RunScope, agentPath: string, onStep: (entry: JournalRecord) => void, holdEnd?: (entry: JournalInput) => void, leaseEpoch?: number): RunScope {
  return new Proxy(scope, {
    get(target, prop) {
      if (prop === "journal") {
        return (given: JournalInput) => {
          // The child's own entries say which delegation lease they were made under.
          const entry = leaseEpoch !== undefined && given.agent === agentPath ? { ...given, leaseEpoch } : given;
          if (holdEnd && isOwnEnd(entry, agentPath)) holdEnd(entry);
          else target.journal(entry);
          if (entry.agent === agentPath) onStep({ ...entry, seq: 0, at: "", runId: target.runId });
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The `agents` port for a host: each child is a runtime built from the subagent stack
 * (composed once per distinct lease allowance), with its own model, the parent's thread id
 * (so the parent's workspace) and its own checkpoint thread `${threadId}/${agentPath}`.
 *
 * @example
 * const agents = createChildRunner({ composeChild: (layers) => compose(subStack, { plugins, config: [...mine, ...layers] }),
 *   modelFor: (path, type) => modelFor(type), types: ["general-purpose"], scopeFor: () => scope });
 * const lead = createAgentRuntime(leadComposition, { model, ports: { agents } });
 */
export function createChildRunner(options: ChildRunnerOptions): AgentsPort {
  const checkpointer = options.checkpointer ?? new MemorySaver();
  const compositions = new Map<string, Composition>();
  const base = options.composeChild([]);
  // The plugin that enforces the children's token budget, known only by the port it provides.
  const budgetPlugin = portProvider(base, TOKEN_ALLOWANCE_PORT);
  const childPorts = options.ports ? Object.fromEntries(Object.entries(options.ports).filter(([name]) => name !== "agents")) : undefined;

  const compositionFor = (tokenLimit: number | undefined): Composition => {
    if (tokenLimit === undefined || !budgetPlugin) return base;
    const key = String(tokenLimit);
    let composition = compositions.get(key);
    if (!composition) compositions.set(key, (composition = options.composeChild([{ [budgetPlugin.name]: { limit: tokenLimit } }])));
    return composition;
  };

  return {
    types: () => options.types,

    pluginConfig: (_subagentType, name) => base.plugins.get(name)?.config,

    tokenBudget: () => (budgetPlugin ? buildPort<TokenAllowancePort>(base, TOKEN_ALLOWANCE_PORT).budget() : undefined),

    async run(request: ChildAgentRequest): Promise<ChildAgentResult> {
      const runtime = createAgentRuntime(compositionFor(request.tokenLimit), {
        model: options.modelFor(request.agentPath, request.subagentType),
        tools: request.tools,
        checkpointer,
        maxTurns: request.maxTurns,
        protectedTools: request.protectedTools,
        terminalTools: request.terminalTools,
        systemPrompt: request.systemPrompt,
        ...(childPorts ? { ports: childPorts } : {}),
        ...(options.summarize ? { summarize: options.summarize } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      });
      const parent = options.scopeFor?.(request.runId) ?? new RunScope(request.runId, request.threadId, options.clock ?? systemClock, {});
      let usage = ZERO;
      let heldEnd: JournalInput | undefined;
      let started = false;
      let turn = 0;
      const hold = request.journalsEnd === true ? (entry: JournalInput) => void (heldEnd = entry) : undefined;
      const scope = observedScope(
        parent,
        request.agentPath,
        (entry) => {
          turn = entry.turn;
          if (entry.kind === "lifecycle" && entry.name === "start") started = true;
          if (entry.kind !== "model_call" && entry.kind !== "tool_call") return;
          if (entry.kind === "model_call") usage = addUsage(usage, entry.usage);
          const step: ChildStep = { kind: entry.kind, turn: entry.turn, status: entry.status, usage };
          request.onStep?.(step);
        },
        hold,
        request.leaseEpoch,
      );
      const fence = request.fence ? childFence(request.fence, request.leaseEpoch) : undefined;
      // Outside the parent's LangGraph context: invoked from inside the parent's tools node, the
      // child graph would otherwise inherit the parent's configurable (checkpointer, namespace)
      // through AsyncLocalStorage and run as a nested subgraph instead of a root run.
      let result: Awaited<ReturnType<typeof runtime.run>>;
      try {
        result = await detached(() => runtime.run({
          threadId: request.threadId,
          checkpointThreadId: `${request.threadId}/${request.agentPath}`,
          runId: request.runId,
          agent: request.agentPath,
          agentName: request.subagentType,
          input: request.input,
          signal: request.signal,
          scope,
          maxTurns: request.maxTurns,
          streamTokens: childStreamsTokens(scope.stream),
          // Fenced by the parent's run row: a parent that lost its lease writes no child checkpoint.
          ...(fence ? { fence } : {}),
          ...(request.user !== undefined ? { user: request.user } : {}),
        }));
      } catch (error) {
        // A child that threw never journaled its end: it failed, as its caller will record it.
        if (started) parent.journal({ agent: request.agentPath, turn, kind: "lifecycle", name: "end", status: "failed", durationMs: 0 });
        throw error;
      }
      // A child cut short keeps the usage of its last checkpoint; the journal may know a later answered call.
      const child: ChildAgentResult = { ...result, usage: result.usage.totalTokens >= usage.totalTokens ? result.usage : usage };
      if (hold) {
        child.journalEnd = (status) => {
          if (heldEnd) parent.journal({ ...heldEnd, status });
          heldEnd = undefined;
        };
      }
      options.onChildEnd?.(request.agentPath, child, request.runId);
      return child;
    },
  };
}
