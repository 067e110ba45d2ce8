import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import { compose } from "../../kernel/compose/index.js";
import type { Composition, StackInput } from "../../kernel/compose/types.js";
import { CompositionError } from "../../kernel/errors.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { sha256Hex } from "../../kernel/hashing.js";
import { RunScope, steppingClock, type JournalRecord, type ModelRequestRecord, type StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { createChildRunner } from "../../kernel/loop/children.js";
import type { ChildAgentResult } from "../../kernel/ports/agents.js";
import type { RunObserver } from "../../kernel/observe/run-observer.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { createErrorFallbackPlugin, errorFallbackPlugin } from "../../plugins/error-fallback/index.js";
import { seedWorkspace, workspaceDir } from "../../plugins/workspace/index.js";
import { loadStack, stackPluginNames } from "../stacks/load-stack.js";
import { composeSubagentStack } from "../stacks/subagent-stack.js";
import { assertScenario } from "./load-scenario.js";
import { seededRandom } from "./seeded-random.js";
import { withToolFixtures } from "./tool-fixtures.js";
import { buildRunReport, buildRunReportV1, withChildren, type ReportVersion, type RunReport, type RunReportV2 } from "./run-report.js";

/** Scenarios run on a fixed clock with seeded ids, so two runs give the same report apart from durations. */
export const SCENARIO_CLOCK_START = Date.parse("2026-01-01T00:00:00.000Z");

export interface RunScenarioOptions {
  /** Override the scenario's stack (a built-in name or a stack file path). */
  stack?: string;
  /** Directory that relative paths in the scenario resolve against (default: cwd). */
  baseDir?: string;
  /** Extra plugin modules (`--plugin`). */
  pluginFiles?: readonly string[];
  /** Extra plugin instances, added to the lead stack after its own entries (like `--plugin`). */
  plugins?: readonly Plugin[];
  /** Keep the temporary workspace directory instead of deleting it. */
  keepWorkspace?: boolean;
  /** Where the temporary workspace directory is made (`keel run --workspaces DIR`; created if missing). Default: the OS temp directory. */
  workspacesDir?: string;
  signal?: AbortSignal;
  /** Told of the run, its children and every model and tool call (`keel run --otlp-endpoint`: tracing). */
  observer?: RunObserver;
  /** The report version returned: 1 (default, every model request whole) or 2 (model requests as deltas; what `keel run --json` prints). */
  reportVersion?: ReportVersion;
}

/**
 * Run a scenario@1 with its scripted models through the real stack, and return its
 * run-report@1 (or @2 with `reportVersion: 2`). Throws `KeelError`
 * `KEEL_ERR_SCENARIO_INVALID` (with the JSON `pointer`) for a value that is not a valid
 * scenario@1, and `CompositionError` when the stack does not compose.
 */
export async function runScenario(scenario: ScenarioV1, options: RunScenarioOptions & { reportVersion: 2 }): Promise<RunReportV2>;
export async function runScenario(scenario: ScenarioV1, options?: RunScenarioOptions & { reportVersion?: 1 }): Promise<RunReport>;
export async function runScenario(scenario: ScenarioV1, options?: RunScenarioOptions): Promise<RunReport | RunReportV2>;
export async function runScenario(scenario: ScenarioV1, options: RunScenarioOptions = {}): Promise<RunReport | RunReportV2> {
  // What `keel run` checks of a file, checked of a value too: an invalid scenario never runs (nor reports success).
  assertScenario(scenario);
  const baseDir = options.baseDir ?? process.cwd();
  const lead = await loadStack(options.stack ?? (scenario.stack as string | StackV1), {
    pluginFiles: options.pluginFiles ?? [],
    plugins: options.plugins ?? [],
    baseDir,
    cwd: baseDir,
  });
  const subRef = lead.stack.subagentStack ?? "subagent";
  const sub = await loadStack(subRef as string | StackV1, { baseDir: lead.baseDir, cwd: lead.baseDir });

  const seed = sha256Hex(`scenario:${scenario.name}`).slice(0, 12);
  const ownErrorFallback = scenarioErrorFallback(seed);
  lead.plugins = lead.plugins.map(ownErrorFallback);
  sub.plugins = sub.plugins.map(ownErrorFallback);
  const threadId = `thread-${seed}`;
  const runId = `run-${seed}`;
  if (options.workspacesDir !== undefined) mkdirSync(options.workspacesDir, { recursive: true });
  const root = mkdtempSync(join(options.workspacesDir ?? tmpdir(), "keel-scenario-"));
  // The run's own timers (child timeouts, lease heartbeats) do not hold the process open, so a
  // run that only waits on them would let Node exit with no report and the workspace left behind.
  const keepAlive = setInterval(() => {}, 3_600_000);
  try {
    const runnerConfig = { workspace: { root, ...(scenario.bash ? { scriptedBash: scenario.bash } : {}) } };
    const layers = configLayers(scenario, [lead.stack, sub.stack]);
    const leadComposition = withToolFixtures(compose(lead.stack, { plugins: lead.plugins, config: [...layers.forStack(lead.stack), onlyPresent(runnerConfig, lead.stack)] }), scenario.toolResults);
    const subLayers = [...layers.forStack(sub.stack), ...layers.forChildren(sub.stack), onlyPresent(runnerConfig, sub.stack)];
    const composeSub = (config: ConfigMap[]) => withToolFixtures(composeSubagentStack(sub.stack, { plugins: sub.plugins, config }), scenario.toolResults);
    const subComposition = composeSub(subLayers);

    if (leadComposition.plugins.has("workspace")) seedWorkspace(workspaceDir({ root }, threadId), scenario.workspace?.files ?? {});

    const events: StreamEventRecord[] = [];
    const journal: JournalRecord[] = [];
    const modelRequests: ModelRequestRecord[] = [];
    const scope = new RunScope(runId, threadId, steppingClock(SCENARIO_CLOCK_START), {
      event: (e) => events.push(e),
      journal: (j) => journal.push(j),
      modelRequest: (r) => modelRequests.push(r),
    });
    const model = new ScriptedChatModel({ script: scenario.agentPaths?.lead ?? scenario.agents.lead, agentPath: "lead", agentType: "lead", faults: scenario.faults ?? [] });
    // Children: the subagent stack (lease allowance as the last config layer), one scripted model per instance.
    const children = new Map<string, ChildAgentResult>();
    const agents = createChildRunner({
      composeChild: (extra) => (extra.length === 0 ? subComposition : composeSub([...subLayers, ...extra])),
      // A script for the child's own agent path (a replayed recording) comes before its type's.
      modelFor: (agentPath, type) =>
        new ScriptedChatModel({ script: scenario.agentPaths?.[agentPath] ?? scenario.agents[type] ?? { turns: [] }, agentPath, agentType: type, faults: scenario.faults ?? [] }),
      types: Object.keys(scenario.agents).filter((name) => name !== "lead"),
      scopeFor: () => scope,
      onChildEnd: (agentPath, child) => children.set(agentPath, child),
    });
    const runtime = createAgentRuntime(leadComposition, { model, maxTurns: scenario.maxTurns ?? 150, ports: { agents }, ...(options.observer ? { observer: options.observer } : {}) });

    scope.emit("metadata", { run_id: runId, thread_id: threadId, attempt: 1 });
    const result = await runtime.run({ threadId, runId, input: scenario.input, scope, ...(options.signal ? { signal: options.signal } : {}) });
    scope.emit("end", null);

    const input = { scenario: scenario.name, threadId, runId, result, events, journal, modelRequests, compositions: { lead: leadComposition, subagent: subComposition } };
    const report = options.reportVersion === 2 ? buildRunReport(input) : buildRunReportV1(input);
    return withChildren<RunReport | RunReportV2>(report, journal, children, subComposition);
  } finally {
    clearInterval(keepAlive);
    if (!options.keepWorkspace) rmSync(root, { recursive: true, force: true });
  }
}

type ConfigMap = Record<string, Record<string, unknown>>;

/**
 * A scenario run is independent of every other and deterministic, so the built-in
 * error-fallback (whose circuit breaker belongs to its instance: one for the process) is
 * replaced, for this run's lead and children alike, by a fresh instance: its own breaker,
 * on a stepping clock of its own (not the report's), and backoff jitter drawn from the
 * scenario's seed. The backoff still waits in real time.
 */
function scenarioErrorFallback(seed: string): (plugin: Plugin) => Plugin {
  const fresh = createErrorFallbackPlugin({ random: seededRandom(Number.parseInt(seed.slice(0, 8), 16)), now: steppingClock(SCENARIO_CLOCK_START).now });
  return (plugin) => (plugin === errorFallbackPlugin ? fresh : plugin);
}


function onlyPresent(config: ConfigMap, stack: StackInput): ConfigMap {
  const names = stackPluginNames(stack);
  return Object.fromEntries(Object.entries(config).filter(([name]) => names.has(name)));
}

/**
 * A scenario's `config` applies to a plugin in every stack of the run, `subagentConfig`
 * to children only. A plugin that is in none of the run's stacks is still an error, so
 * `config` is passed through whole to the stack that holds none of the run's plugins.
 */
function configLayers(scenario: ScenarioV1, stacks: StackInput[]) {
  const known = new Set(stacks.flatMap((s) => [...stackPluginNames(s)]));
  const unknown = (map: ConfigMap | undefined) => Object.fromEntries(Object.entries(map ?? {}).filter(([name]) => !known.has(name)));
  const strayConfig = { ...unknown(scenario.config), ...unknown(scenario.subagentConfig) };
  return {
    forStack: (stack: StackInput): ConfigMap[] => [{ ...onlyPresent(scenario.config ?? {}, stack), ...(stack === stacks[0] ? strayConfig : {}) }],
    forChildren: (stack: StackInput): ConfigMap[] => [onlyPresent(scenario.subagentConfig ?? {}, stack)],
  };
}

export { CompositionError, type Composition };
