import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import { compose } from "../../kernel/compose/index.js";
import type { Composition, StackInput } from "../../kernel/compose/types.js";
import { runtimeOwnedKeys } from "../../kernel/compose/runtime-owned.js";
import { KeelError } from "../../kernel/errors.js";
import { createChildRunner } from "../../kernel/loop/children.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { modelSummarizer } from "../../kernel/loop/summarize.js";
import type { RunExecutor } from "../../kernel/runs/executor.js";
import { createRuntimeExecutor, type RuntimeExecutor } from "../../kernel/runs/runtime-executor.js";
import { checkpointForkStatus } from "../../kernel/runs/checkpoint-fork.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { ITEM_STORE_PORT, type ItemStore } from "../../kernel/ports/item-store.js";
import { UserItemStore } from "../../kernel/ports/user-item-store.js";
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import { createThreadCheckpoints, type ThreadCheckpoints } from "../../plugins/gateway/index.js";
import { seedWorkspace, workspaceDir, writeLogPath } from "../../plugins/workspace/index.js";
import { loadStack, stackPluginNames } from "../stacks/load-stack.js";
import { composeSubagentStack } from "../stacks/subagent-stack.js";
import type { RunModels } from "./run-models.js";
import type { AssistantStore } from "../../kernel/assistants/types.js";
import { PLUGIN_OPTIONS_KEY } from "../../plugins/gateway/assistant-registry.js";
import type { StackCatalog } from "../../plugins/gateway/stack-catalog.js";
import { createStackCatalog, type CatalogStack } from "./stack-catalog.js";
import type { SummaryModels } from "./summary-models.js";

export interface ServeExecutorOptions {
  /** Stack names; each is one assistant (`assistant_id` = the name). */
  stacks: readonly string[];
  models: RunModels;
  /**
   * The model that writes a run's summaries (summary-models.ts), for the lead and its
   * children: called by the kernel with the stack's retries, journaled, counted in usage.
   * Without it, the deterministic extractive summarizer.
   */
  summaryModels?: SummaryModels;
  checkpointer: BaseCheckpointSaver;
  /** Where a thread's last run tells which stack's channels its state has. */
  store: RunStore;
  /** Long-term items: each run's plugins get its user's view as the `item-store` port (a LangGraph BaseStore). */
  items?: ItemStore;
  /** Absolute directory holding one workspace per thread. */
  workspaceRoot: string;
  bash: "on" | "off";
  /** The workspace's `watchdogDeadlineMs` (kept below the lease: `watchdogDeadlineForLease`); absent: the plugin's default. */
  bashWatchdogDeadlineMs?: number;
  /** The server's turn cap (`--max-turns`): the run manager clamps requests to it, and no default exceeds it. */
  maxTurns: number;
  /** Told of every run, child run, model and tool call (tracing, metrics). */
  observer?: RunObserver;
  /** User assistants: a run's assistant id that is no stack name is looked up here for its stack. */
  assistants?: AssistantStore;
  /** Models a request or an assistant may name (the run manager's `allowedModels`); absent: any. */
  allowedModels?: readonly string[];
}

interface ServedStack extends CatalogStack {
  lead: Composition;
  subagent: Composition;
  /** Compose the subagent stack with a child's extra layers (its lease's token allowance). */
  composeChild(extra: readonly ConfigMap[]): Composition;
  /** The same with a run's (assistant's and request's) plugin options, those of plugins the subagent stack has. */
  composeSubagent(options: ConfigMap, extra?: readonly ConfigMap[]): Composition;
  /** A runtime for reads (thread state) and rollback captures: neither calls the model. */
  reader: RunExecutor;
}

type ConfigMap = Record<string, Record<string, unknown>>;

/** The executor, and what the run manager's request hygiene needs from the served stacks. */
export interface ServeExecutor extends RunExecutor {
  /** `runtimeOwnedKeys` of every served composition (leads and subagents): a request may not set them. */
  readonly runtimeOwnedKeys: readonly string[];
  /** The threads' checkpoints for the gateway's thread-state routes, over the served lead stacks. */
  readonly threadState: ThreadCheckpoints;
  /** The served stacks for the assistants API (option checks, graphs, schemas). */
  readonly catalog: StackCatalog;
}

/** Workspace options the server sets (stackConfig's last layer): an assistant or a run may not set them. */
const SERVER_OPTIONS = { workspace: ["root", "bash", "scriptedBash", "watchdogDeadlineMs"] } as const;

/** The lead's turn budget when nothing else says. */
const LEAD_DEFAULT_MAX_TURNS = 150;

/**
 * The executor behind `keel serve`: the run's assistant picks the stack, and every run
 * gets a fresh runtime around a fresh model, so scripted models start their scripts
 * afresh on every run. Stacks are composed once, at start: a stack that does not
 * compose stops the server from starting, not a run.
 */
export async function createServeExecutor(options: ServeExecutorOptions): Promise<ServeExecutor> {
  const { checkpointer, models } = options;
  const workspaceConfig = {
    root: options.workspaceRoot,
    bash: options.bash,
    ...(options.bashWatchdogDeadlineMs !== undefined ? { watchdogDeadlineMs: options.bashWatchdogDeadlineMs } : {}),
    ...(models.scenario?.bash ? { scriptedBash: models.scenario.bash } : {}),
  };
  const dirOf = (threadId: string) => workspaceDir(workspaceConfig, threadId);
  const stacks = new Map<string, ServedStack>();
  for (const name of options.stacks) {
    const leadStack = await loadStack(name);
    const subStack = await loadStack((leadStack.stack.subagentStack ?? "subagent") as string | StackV1, { baseDir: leadStack.baseDir, cwd: leadStack.baseDir });
    // Option layers, later wins: the stack file's config, a scripted server's scenario, then an
    // assistant's and a request's plugin options (`composeLead`), then what the server sets.
    const leadLayers = stackConfig(leadStack.stack, workspaceConfig, models.scenario);
    const lead = compose(leadStack.stack, { plugins: leadStack.plugins, config: leadLayers });
    const composeLead = (extra: ConfigMap) => compose(leadStack.stack, { plugins: leadStack.plugins, config: [...leadLayers.slice(0, -1), extra, ...leadLayers.slice(-1)] });
    const subLayers = stackConfig(subStack.stack, workspaceConfig, models.scenario, true);
    const subagent = composeSubagentStack(subStack.stack, { plugins: subStack.plugins, config: subLayers });
    const subagentPlugins = new Set(subagent.plugins.keys());
    // A child's layers: the stack file's, the scenario's, the run's options for plugins the
    // subagent stack also has (`childOptions`), the server's, then the runner's (its lease's allowance).
    const composeSubagent = (options: ConfigMap, extra: readonly ConfigMap[] = []) => {
      const own = childOptions(options, subagentPlugins);
      if (!own && extra.length === 0) return subagent;
      return composeSubagentStack(subStack.stack, { plugins: subStack.plugins, config: [...subLayers.slice(0, -1), own ?? {}, ...subLayers.slice(-1), ...extra] });
    };
    const composeChild = (extra: readonly ConfigMap[]) => composeSubagent({}, extra);
    // The workspace plugin's `rollback` port puts a thread's files back with its checkpoint.
    const readerRuntime = createAgentRuntime(lead, { model: models.forLead("reader"), checkpointer });
    const reader = createRuntimeExecutor({ runtime: readerRuntime, checkpointer });
    const drawSubagent = () => createAgentRuntime(subagent, { model: models.forLead("reader"), checkpointer: false }).drawGraph();
    const description = typeof leadStack.stack.description === "string" ? { description: leadStack.stack.description } : {};
    stacks.set(name, { lead, subagent, composeChild, composeSubagent, reader, composeLead, delegates: lead.plugins.has("subagents"), drawLead: () => readerRuntime.drawGraph(), drawSubagent, ...description });
  }
  /** The stack of an assistant: a stack name, or a user assistant's `graphId`. */
  const stackOf = async (assistantId: string): Promise<ServedStack> => {
    const graphId = stacks.has(assistantId) ? assistantId : ((await options.assistants?.getAssistant(assistantId))?.graphId ?? assistantId);
    const stack = stacks.get(graphId);
    if (!stack) throw new KeelError("KEEL_ERR_STACK_NOT_FOUND", `assistant \`${assistantId}\` is not served here (stacks: ${[...stacks.keys()].join(", ")})`);
    return stack;
  };
  // A run that asks for no turn limit gets the lead's default (a scripted scenario's own), within the cap.
  const defaultMaxTurns = Math.min(models.scenario?.maxTurns ?? LEAD_DEFAULT_MAX_TURNS, options.maxTurns);

  return {
    runtimeOwnedKeys: runtimeOwnedKeys([...stacks.values()].flatMap((s) => [s.lead, s.subagent])),
    threadState: createThreadCheckpoints({ checkpointer, compositions: new Map([...stacks].map(([name, s]) => [name, s.lead])) }),
    catalog: createStackCatalog(stacks, { serverOptions: SERVER_OPTIONS, maxTurns: options.maxTurns, defaultMaxTurns, ...(options.allowedModels ? { allowedModels: options.allowedModels } : {}) }),
    async execute(run, io) {
      const stack = await stackOf(run.assistantId);
      // The assistant's and the request's plugin options, checked by the gateway at admission.
      const pluginOptions = (run.request.config?.configurable as Record<string, unknown> | undefined)?.[PLUGIN_OPTIONS_KEY] as ConfigMap | undefined;
      const leadComposition = pluginOptions && Object.keys(pluginOptions).length > 0 ? stack.composeLead(pluginOptions) : stack.lead;
      const dir = dirOf(run.threadId);
      const seed = models.scenario?.workspace?.files;
      // A scripted server's scenario describes the workspace its scripts expect: a new thread starts with it.
      if (seed && stack.lead.plugins.has("workspace") && !existsSync(dir)) seedWorkspace(dir, seed);
      // Children run in the lead's scope (one event and journal order) and go into its
      // report; the runtime executor holds both per run, so the runner asks it late.
      let executor: RuntimeExecutor | undefined;
      const summarize = options.summaryModels ? modelSummarizer(options.summaryModels(run.runId)) : undefined;
      // The run user's long-term memory, for the lead and for every child it delegates to.
      const hostPorts = options.items ? { [ITEM_STORE_PORT]: new UserItemStore(options.items, run.user, { now: () => new Date().toISOString() }) } : {};
      // A child refuses what the lead's approval policy covers: the lead's composed policy (stack, assistant, request) is the child's.
      const policy = leadComposition.plugins.get("human-approval")?.config;
      const childPolicy: ConfigMap | undefined = policy && stack.subagent.plugins.has("human-approval") ? { "human-approval": { ...policy } } : undefined;
      // The run's plugin options reach the children's plugins of the same names (README, "Assistants API").
      const childLayer: ConfigMap | undefined = pluginOptions || childPolicy ? { ...pluginOptions, ...childPolicy } : undefined;
      const agents = createChildRunner({
        composeChild: childLayer ? (extra) => stack.composeSubagent(childLayer, extra) : stack.composeChild,
        ports: hostPorts,
        modelFor: (agentPath, subagentType) => models.forChild(agentPath, subagentType),
        types: models.childTypes,
        checkpointer,
        ...(summarize ? { summarize } : {}),
        scopeFor: (runId) => executor?.scopeFor(runId),
        onChildEnd: (agentPath, child, runId) => executor?.recordChild(runId, agentPath, child),
      });
      const runtime = createAgentRuntime(leadComposition, { model: models.forLead(run.runId), checkpointer, maxTurns: defaultMaxTurns, ports: { agents, ...hostPorts }, ...(summarize ? { summarize } : {}), ...(options.observer ? { observer: options.observer } : {}) });
      executor = createRuntimeExecutor({
        runtime,
        checkpointer,
        subagentComposition: stack.subagent,
        maxTurns: defaultMaxTurns,
      });
      // The loop streams LangGraph's modes itself (`values` after every step, when asked for).
      return executor.execute(run, io);
    },
    async captureRollbackPoint(threadId) {
      const stack = await stackOfThread(threadId);
      return stack.reader.captureRollbackPoint(threadId);
    },
    async getThreadState(threadId) {
      const stack = await stackOfThread(threadId);
      return stack.reader.getThreadState(threadId);
    },
    checkpointForkStatus: (threadId, checkpointId) => checkpointForkStatus(checkpointer, threadId, checkpointId),
    /** A deleted thread's checkpoints (its own and its children's) and its workspace directory. */
    async purgeThread(threadId, { checkpointThreads }) {
      for (const id of checkpointThreads) await checkpointer.deleteThread(id);
      let dir: string;
      try {
        dir = dirOf(threadId);
      } catch {
        return; // an id that cannot name a directory never had a workspace
      }
      await rm(dir, { recursive: true, force: true });
      // The thread's write log (epochs of its file writes) goes with it.
      await rm(writeLogPath(workspaceConfig, threadId), { force: true });
    },
  };

  /** The stack of the thread's newest run (its state has that stack's channels); the first stack for a new thread. */
  async function stackOfThread(threadId: string): Promise<ServedStack> {
    const [latest] = await options.store.listRuns(threadId, { limit: 1, offset: 0 });
    if (!latest) return stacks.get(options.stacks[0]!)!;
    return stackOf(latest.assistantId).catch(() => stacks.get(options.stacks[0]!)!);
  }
}


/**
 * Options for the stack's plugins: the workspace (root, bash switch, scripted bash) and,
 * for a scripted server, the scenario's `config` (and `subagentConfig` for children),
 * each only for plugins the stack has.
 */
function stackConfig(stack: StackInput, workspace: Record<string, unknown>, scenario: ScenarioV1 | undefined, children = false): ConfigMap[] {
  const names = stackPluginNames(stack);
  const only = (map: ConfigMap | undefined): ConfigMap => Object.fromEntries(Object.entries(map ?? {}).filter(([name]) => names.has(name)));
  const layers: ConfigMap[] = [only(scenario?.config as ConfigMap | undefined)];
  if (children) layers.push(only(scenario?.subagentConfig as ConfigMap | undefined));
  layers.push(only({ workspace }));
  return layers;
}

/**
 * A run's plugin options that apply to the subagent stack: those of plugins it has (an
 * option for a lead-only plugin, such as `subagents` or `batch-leasing`, stays the lead's).
 * Undefined when none do.
 */
export function childOptions(options: ConfigMap, subagentPlugins: ReadonlySet<string>): ConfigMap | undefined {
  const own = Object.entries(options).filter(([name]) => subagentPlugins.has(name));
  return own.length > 0 ? Object.fromEntries(own) : undefined;
}
