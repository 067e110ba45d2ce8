import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { RUN_KEY_CONFIG } from "./config-keys.js";
import { buildPort } from "../ports/resolve.js";
import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, Command, END, MemorySaver, Overwrite, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { initialValue, reduceChannel } from "../channels/reducers.js";
import { PSEUDO_CHANNELS } from "../channels/kernel-channels.js";
import type { Composition } from "../compose/types.js";
import { KeelError } from "../errors.js";
import type { KeelTool } from "../plugin/types.js";
import { toKeelTool, type ToolLike } from "../interop/langchain-tools.js";
import { agentStep } from "./agent-node.js";
import { toRunError } from "./finish.js";
import { HookRunner, type AgentIdentity } from "./hook-runner.js";
import { callSummaryModel } from "./summary-call.js";
import { freezeItems, WorkingChannels } from "./working-channels.js";
import { ensureMessageId } from "./message-meta.js";
import { warnOnModelRetries } from "./model-retries.js";
import { freshLoopState, type BoundTool, type LoopState, type RunDeps } from "./loop-state.js";
import type { TokenUsage } from "./normalize.js";
import { RunScope, systemClock, type Clock, type RunSink, type StreamRequest } from "./run-scope.js";
import { deriveStatus, type StatusV2Payload, type StopReasonEntry } from "./status.js";
import { extractiveSummary, isSummaryModel, type SummarizeOption } from "./summarize.js";
import { toolsStep } from "./tools-node.js";
import { namespaceOf, streamGraph } from "./stream-graph.js";
import { FENCE_CONFIG_KEY, fencedSaver } from "./fenced-saver.js";
import { unwatchedFence, type RunFence } from "../ports/fence.js";
import { MODEL_PORT, modelPort } from "../ports/model.js";
import { describeModel, observeRun } from "../observe/observed.js";
import type { RunObserver } from "../observe/run-observer.js";
import { pausesAfterStep, runAfterAgentAtPause } from "./pause-hooks.js";
import { awaitingInput, checkInterruptNodes, interruptOptions, isGraphPause, pauseOf, resumeCommand, type InterruptPoints, type PauseState, type ResumeCommand } from "./pause.js";

export interface AgentRuntimeOptions {
  /**
   * Any `@langchain/core` chat model. Build provider clients with `maxRetries: 0`: the
   * stack's error-fallback is the only retry layer (a client retrying on its own hides
   * attempts from the journal); the runtime warns once (`KEEL_WARN_MODEL_RETRIES`) when
   * it can tell a provider model retries on its own.
   */
  model: BaseChatModel;
  /** Tools in addition to those the stack's plugins supply: Keel tools, or LangChain tools as they are. */
  tools?: readonly ToolLike[];
  /**
   * Where the thread's state persists between steps and runs (default: a new `MemorySaver`).
   * `false` runs without a checkpointer: every run starts a new thread, `getState` returns `{}`,
   * and the run's result comes from the graph's last state (for one-shot runs and benchmarks).
   */
  checkpointer?: BaseCheckpointSaver | false;
  /** Turn budget; the `maxTurns`-th model call is the forced final one (default 150). */
  maxTurns?: number;
  /** Tools never stripped by a stop request and the only ones bound on a forced call (a child's `return_result`). */
  protectedTools?: readonly string[];
  /** A successful call of one of these ends the agent after that tools step. */
  terminalTools?: readonly string[];
  /**
   * The `ctx.summarize` port (default: a deterministic extractive summary). A summary model
   * (`modelSummarizer(model)`) is called by the kernel through the stack's retry layers,
   * journaled (`model_call` named `summarize`) and counted in the agent's usage.
   */
  summarize?: SummarizeOption;
  /** Ports the host supplies (e.g. a child-agent runner); they win over plugin-provided ones and over the runtime's `model` port (kernel/ports/model.ts). */
  ports?: Readonly<Record<string, unknown>>;
  /** System prompt placed first in a new thread. */
  systemPrompt?: string;
  clock?: Clock;
  /**
   * For tests and benchmarks only (default true): run-time enforcement of in-place edits,
   * wrap-hook pseudo-channels and channel schemas. Off, a hook can change what it only
   * observes; never turn it off in a product.
   */
  enforcement?: boolean;
  /**
   * Told of every run, model call and tool call (tracing, metrics: kernel/observe). A child
   * run started inside an observed tool call reports to the same observer without one.
   */
  observer?: RunObserver;
}

export interface RunOptions {
  threadId: string;
  runId: string;
  /** The new input; `null` continues a paused thread (as LangGraph's `input: null`; see `command`). */
  input: string | BaseMessage | readonly BaseMessage[] | null;
  /**
   * Resume a paused thread with LangGraph's `Command` (`resume`, `update`, `goto`), instead of
   * `input` (kernel/loop/pause.ts). A resume keeps the thread's turn count, usage and stop
   * reasons: its budgets go on from where the paused run left them.
   */
  command?: ResumeCommand;
  /** Pause before / after the loop's nodes (`agent`, `tools`, or `*`), as LangGraph's `interruptBefore` / `interruptAfter`. */
  interrupts?: InterruptPoints;
  /** Agent path (default `lead`). */
  agent?: string;
  signal?: AbortSignal;
  sink?: RunSink;
  /** Share a parent's scope (clock, event and journal sequences) with a child run. */
  scope?: RunScope;
  maxTurns?: number;
  /** What the run streams when it makes its own scope (default: none of the graph's modes); a given `scope` brings its own. */
  stream?: StreamRequest;
  /** Stream model tokens as `messages` events (default false; the run service turns it on when a client asked for them). */
  streamTokens?: boolean;
  /**
   * The checkpointer's thread for this run (default `threadId`). A child runs under its
   * parent's `threadId` (its tools see the parent's workspace) in its own checkpoint thread.
   */
  checkpointThreadId?: string;
  /**
   * The run's lease, passed to the checkpointer as `configurable.keel_fence`: every
   * checkpoint write first calls its `assertHeld` (a RunFence, kernel/ports/fence.ts), and a
   * saver that knows the run store (store-sql's) refuses every write once this epoch no
   * longer holds the lease (`KEEL_ERR_LEASE_FENCED`). Tools and hooks see it as `ctx.fence`.
   * A plain `{ runId, epoch }` is checked only by such a saver.
   */
  fence?: RunFence | { runId: string; epoch: number; now?: () => number };
  /** Who the run is for (the run service's authenticated user): hooks and tools see it as `ctx.user`. */
  user?: string;
  /** What observers call this agent (tracing's `gen_ai.agent.name`; default the agent path). A child runner passes the subagent type. */
  agentName?: string;
}

export interface RunResult {
  outcome: StatusV2Payload;
  messages: BaseMessage[];
  /** Every channel's final value. */
  values: Record<string, unknown>;
  turns: number;
  usage: TokenUsage;
}

export interface AgentRuntime {
  readonly composition: Composition;
  readonly tools: readonly KeelTool[];
  run(options: RunOptions): Promise<RunResult>;
  /** The thread's persisted channel values (from the checkpointer). */
  getState(threadId: string): Promise<Record<string, unknown>>;
  /** The compiled loop as LangGraph draws it (`getGraphAsync().toJSON()`): `{ nodes, edges }`. */
  drawGraph(): Promise<DrawnGraph>;
}

/** LangGraph's drawable graph as JSON (what the Agent Server's `GET /assistants/:id/graph` answers). */
export interface DrawnGraph {
  nodes: Array<{ id: string; type: string; data?: unknown; metadata?: unknown }>;
  edges: Array<{ source: string; target: string; conditional?: boolean; data?: unknown }>;
}

const LOOP_KEY = "__keel";
/** The config key naming the live run of a graph invocation (`<runId>|<agent>`): a resumed checkpoint's loop state names an earlier one. */
const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * Compile a composition into a LangGraph agent loop with two nodes (agent, tools); every
 * hook runs as a plain call inside them.
 *
 * @example
 * const runtime = createAgentRuntime(compose(stack, { plugins }), { model });
 * const { outcome } = await runtime.run({ threadId: "t1", runId: "r1", input: "Hello" });
 */
export function createAgentRuntime(composition: Composition, options: AgentRuntimeOptions): AgentRuntime {
  const tools = collectTools(composition, options.tools ?? []);
  const port = portLookup(composition, { [MODEL_PORT]: modelPort(options.model), ...options.ports });
  const runs = new Map<string, RunDeps>();
  const checkpointer = options.checkpointer === false ? undefined : (options.checkpointer ?? new MemorySaver());
  const clock = options.clock ?? systemClock;
  const enforce = options.enforcement !== false;
  warnOnModelRetries(options.model);

  // Built from the composition at run time, so LangGraph's static state typing cannot follow it.
  const channelSpec: Record<string, any> = {};
  for (const [name, channel] of composition.channels) {
    if (PSEUDO_CHANNELS.has(name)) continue;
    channelSpec[name] = Annotation<unknown>({ reducer: (a: unknown, b: unknown) => reduceChannel(channel.reducer, a, b), default: () => initialValue(channel.reducer) });
  }
  channelSpec[LOOP_KEY] = Annotation<LoopState | null>({ reducer: (_a: unknown, b: unknown) => b as LoopState, default: () => null });
  const State = Annotation.Root(channelSpec);

  const node = (name: "agent" | "tools", step: (deps: RunDeps, loop: LoopState, local: WorkingChannels) => Promise<void>) => async (state: Record<string, unknown>, config?: { configurable?: Record<string, unknown> }) => {
    // A resumed thread's loop state was written by an earlier run: the live run is named by the config.
    const liveKey = config?.configurable?.[RUN_KEY_CONFIG];
    const loop = { ...(state[LOOP_KEY] as LoopState), ...(typeof liveKey === "string" ? { runKey: liveKey } : {}) };
    const deps = runs.get(loop.runKey);
    if (!deps) throw new Error(`no live run for ${loop.runKey}`);
    const { [LOOP_KEY]: _loop, ...values } = state;
    const local = new WorkingChannels(composition, values, enforce);
    // What the thread held before this run (a checkpoint) is frozen once per run; what is written later, once when written.
    if (enforce && !deps.historyFrozen) {
      for (const value of Object.values(values)) freezeItems(value);
      deps.historyFrozen = true;
    }
    try {
      await step(deps, loop, local);
    } catch (error) {
      if (deps.signal.aborted || isGraphPause(error)) throw error;
      loop.error = toRunError(error);
      loop.route = "end";
      deps.scope.journal({ agent: deps.agent, turn: loop.turn, kind: "lifecycle", name: "fault", status: loop.error.type, durationMs: 0 });
    }
    // A static interrupt stops the graph after this step: the run ends here, so its afterAgent chain runs now.
    if (!loop.error && pausesAfterStep(deps, name, loop)) await runAfterAgentAtPause(deps, loop, local);
    const changes = local.changes();
    deps.scope.progress({ node: name, agent: deps.agent, turn: loop.turn, route: loop.route, tools: loop.route === "tools" ? toolCallNames(changes.messages) : [] });
    // The node routes itself (a Command): a conditional edge would read, and so re-reduce, the whole state after every step.
    return new Command({ update: { ...changes, [LOOP_KEY]: loop }, goto: loop.route === "end" ? END : loop.route });
  };
  const graph = new StateGraph(State)
    .addNode("agent", node("agent", agentStep) as never, { ends: ["agent", "tools", END] } as never)
    .addNode("tools", node("tools", toolsStep) as never, { ends: ["agent", END] } as never)
    .addEdge(START, "agent" as never)
    .compile(checkpointer ? { checkpointer: fencedSaver(checkpointer) } : {});

  const drawGraph = async (): Promise<DrawnGraph> => (await graph.getGraphAsync()).toJSON() as unknown as DrawnGraph;

  const getState = async (threadId: string) => {
    if (!checkpointer) return {};
    const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
    return (snapshot.values ?? {}) as Record<string, unknown>;
  };

  async function run(opts: RunOptions): Promise<RunResult> {
    const agent = opts.agent ?? "lead";
    const maxTurns = opts.maxTurns ?? options.maxTurns ?? 150;
    const scope = opts.scope ?? new RunScope(opts.runId, opts.threadId, clock, opts.sink ?? {}, opts.stream);
    const signal = opts.signal ?? new AbortController().signal;
    const runKey = `${opts.runId}|${agent}`;
    const interrupts = checkedInterrupts(opts.interrupts);
    const fence = opts.fence === undefined ? undefined : "assertHeld" in opts.fence ? opts.fence : unwatchedFence(opts.fence);
    const chosen = options.summarize ?? extractiveSummary;
    const { observer, observation } = observeRun(options.observer, { runId: opts.runId, threadId: opts.threadId, agent, agentName: opts.agentName ?? agent, model: describeModel(options.model) });
    const summarize: AgentIdentity["summarize"] = isSummaryModel(chosen)
      ? (messages, at) => callSummaryModel(chosen, messages, { retryOnion: (inner, state, turn, updates) => at.runner.retryOnion(inner, state, turn, updates), scope, agent, turn: at.turn, signal, state: at.state, observation })
      : (messages) => chosen(messages);
    const hooks = new HookRunner(composition, scope, { threadId: opts.threadId, runId: opts.runId, agent, signal, summarize, port, ...(fence ? { fence } : {}), ...(opts.user !== undefined ? { user: opts.user } : {}) }, enforce);
    runs.set(runKey, {
      composition,
      model: options.model,
      tools: new Map(tools.map((t) => [t.tool.name, t])),
      maxTurns,
      protectedTools: new Set(options.protectedTools ?? []),
      terminalTools: new Set(options.terminalTools ?? []),
      scope,
      hooks,
      agent,
      threadId: opts.threadId,
      signal,
      ...(fence ? { fence } : {}),
      ...(opts.user !== undefined ? { user: opts.user } : {}),
      port,
      streamTokens: opts.streamTokens === true,
      historyFrozen: false,
      observer,
      observation,
      ...(interrupts ? { interrupts } : {}),
    });
    try {
      const checkpointThread = opts.checkpointThreadId ?? opts.threadId;
      // durability "sync": each step's checkpoint is committed before the next step starts (a worker killed at step k resumes from step k).
      const config = {
        configurable: { thread_id: checkpointThread, [RUN_KEY_CONFIG]: runKey, ...(fence ? { [FENCE_CONFIG_KEY]: fence } : {}) },
        recursionLimit: 2 * maxTurns + 10,
        signal,
        durability: "sync" as const,
        ...interruptOptions(interrupts),
      };
      const runMeta = new Overwrite({ threadId: opts.threadId, runId: opts.runId, agent, startedAt: scope.isoNow() });
      // A resume continues the paused thread: its turn count, usage and stop reasons stay (budgets go on).
      const resuming = opts.command !== undefined || opts.input === null;
      const held = await getState(checkpointThread);
      if (resuming && checkpointer && held[LOOP_KEY] == null) {
        throw new KeelError("KEEL_ERR_RUN_INPUT_INVALID", "the run input at `/input` is null (or a `command` was given) but the thread has no run to continue: send an input", { pointer: "/input" });
      }
      const existing = resuming ? [] : ((held.messages as BaseMessage[] | undefined) ?? []);
      const input = resuming
        ? resumeCommand(opts.command, { runMeta })
        : {
            messages: inputMessages(opts, existing.length === 0 ? options.systemPrompt : undefined),
            runMeta,
            stopReasons: new Overwrite([]),
            usage: new Overwrite({}),
            [LOOP_KEY]: freshLoopState(runKey),
          };
      if (!opts.scope) scope.emit("metadata", { run_id: opts.runId, thread_id: opts.threadId, attempt: 1 });
      scope.journal({ agent, turn: 0, kind: "lifecycle", name: "start", status: "running", durationMs: 0 });
      const result = await invokeGraph(input, config, checkpointThread, runKey, signal, scope, agent);
      observation.end({ outcome: result.outcome, turns: result.turns, usage: result.usage });
      return result;
    } catch (error) {
      runs.delete(runKey);
      observation.fail(error);
      throw error;
    }
  }

  /** Run the graph to its end and read the outcome from the checkpoint. */
  async function invokeGraph(input: unknown, config: Record<string, unknown>, checkpointThread: string, runKey: string, signal: AbortSignal, scope: RunScope, agent: string): Promise<RunResult> {
    let cancelled = false;
    // Without a checkpointer the state after the last step is the result (kept as the graph streams it).
    let last: Record<string, unknown> = {};
    try {
      const streamed = await streamGraph(graph, input, config, { stream: scope.stream, agent, keepLastValues: !checkpointer, runId: scope.runId, emit: (event, data) => void scope.emit(event, data) });
      if (streamed) last = streamed;
    } catch (error) {
      if (!signal.aborted) throw error;
      cancelled = true;
    } finally {
      runs.delete(runKey);
    }
    const snapshot = checkpointer ? await graph.getState({ configurable: { thread_id: checkpointThread } }) : undefined;
    const values = snapshot ? ((snapshot.values ?? {}) as Record<string, unknown>) : last;
    const loop = values[LOOP_KEY] as LoopState | null;
    const pause: PauseState | null = cancelled ? null : pauseOf(snapshot);
    const usage = ((values.usage as Record<string, TokenUsage> | undefined) ?? {})[agent] ?? ZERO_USAGE;
    const messages = (values.messages as BaseMessage[] | undefined) ?? [];
    const outcome = deriveStatus({
      messages,
      stopReasons: (values.stopReasons as StopReasonEntry[] | undefined) ?? [],
      error: loop?.error ?? null,
      cancelled,
      usage,
      ...(pause ? { paused: awaitingInput(pause, loop?.turn ?? 0) } : {}),
    });
    scope.journal({ agent, turn: loop?.turn ?? 0, kind: "lifecycle", name: pause ? "pause" : "end", status: outcome.status, durationMs: 0 });
    // LangGraph's `error` event ({error, message}) for a failed run, after its last `values`; a child's failure is its task's result, not the run's.
    if (outcome.status === "failed" && outcome.error && namespaceOf(agent).length === 0) scope.emit("error", { error: outcome.error.type, message: outcome.error.message, type: outcome.error.type });
    const { [LOOP_KEY]: _loop, ...channels } = values;
    return { outcome, messages, values: channels, turns: loop?.turn ?? 0, usage };
  }

  return Object.freeze({ composition, tools: tools.map((t) => t.tool), run, getState, drawGraph });
}

/** The run's interrupt points, checked (an unknown node is `KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN`). */
function checkedInterrupts(points: InterruptPoints | undefined): InterruptPoints | undefined {
  if (!points) return undefined;
  const before = checkInterruptNodes(points.before, "interruptBefore");
  const after = checkInterruptNodes(points.after, "interruptAfter");
  return before === undefined && after === undefined ? undefined : { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

function inputMessages(opts: RunOptions, systemPrompt: string | undefined): BaseMessage[] {
  if (opts.input === null) return [];
  const given = typeof opts.input === "string" ? [new HumanMessage(opts.input)] : Array.isArray(opts.input) ? [...opts.input] : [opts.input as BaseMessage];
  given.forEach((m, i) => ensureMessageId(m, `${opts.runId}:input:${i + 1}`));
  return systemPrompt ? [new SystemMessage({ content: systemPrompt, id: `${opts.threadId}:system` }), ...given] : given;
}

/** Ports are built once per runtime from the providing plugin's options, on first use. */
function portLookup(composition: Composition, supplied: Readonly<Record<string, unknown>>): <T>(name: string) => T {
  const built = new Map<string, unknown>(Object.entries(supplied));
  return <T>(name: string): T => {
    if (!built.has(name)) built.set(name, buildPort(composition, name));
    return built.get(name) as T;
  };
}

function collectTools(composition: Composition, extra: readonly ToolLike[]): BoundTool[] {
  const out: BoundTool[] = [];
  // A plain plugin object (not through definePlugin) may still hold LangChain tools: converted here too.
  for (const name of composition.order) {
    for (const tool of composition.plugins.get(name)?.plugin.tools ?? []) out.push({ tool: toKeelTool(tool), owner: name });
  }
  for (const tool of extra) out.push({ tool: toKeelTool(tool), owner: "runtime" });
  return out;
}

/** The tool calls' names of the last AI message a step appended (its `messages` change). */
function toolCallNames(messages: unknown): string[] {
  if (!Array.isArray(messages) || messages.length === 0) return [];
  const calls = (messages[messages.length - 1] as { tool_calls?: Array<{ name?: unknown }> }).tool_calls ?? [];
  return calls.map((call) => call.name).filter((name): name is string => typeof name === "string");
}
