import { compose } from "../../kernel/compose/index.js";
import type { ComposeOptions, StackInput } from "../../kernel/compose/types.js";
import { RunScope, steppingClock, type JournalRecord, type ModelRequestRecord, type StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime, type AgentRuntimeOptions, type RunResult } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks, KeelTool, Manifest, Plugin } from "../../kernel/plugin/types.js";
import { ScriptedChatModel, type ScriptedAgent, type ScriptedFault } from "../../tools/testing/scripted-model.js";

export function plugin(manifest: Partial<Manifest> & { name: string }, hooks: Hooks = {}, tools?: KeelTool[]): Plugin {
  const declared = Object.fromEntries(Object.keys(hooks).map((h) => [h, manifest.hooks?.[h as keyof Manifest["hooks"]] ?? {}]));
  return definePlugin({
    manifest: { version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: `test plugin ${manifest.name}`, ...manifest, hooks: { ...declared, ...(manifest.hooks ?? {}) } },
    hooks,
    ...(tools ? { tools } : {}),
  });
}

export function tool(name: string, invoke: KeelTool["invoke"]): KeelTool {
  return { name, description: `${name} tool`, schema: { type: "object" }, invoke };
}

export const toolsPlugin = (...tools: KeelTool[]) => plugin({ name: "test-tools", kind: "service" }, {}, tools);

export interface HarnessRun extends RunResult {
  events: StreamEventRecord[];
  journal: JournalRecord[];
  requests: ModelRequestRecord[];
  model: ScriptedChatModel;
}

/** Compose `plugins`, run one scripted agent, and collect everything the run emitted. */
export async function runWith(
  plugins: Plugin[],
  script: ScriptedAgent,
  options: { input?: string; maxTurns?: number; faults?: ScriptedFault[]; signal?: AbortSignal; order?: StackInput["order"]; compose?: ComposeOptions; runtime?: Partial<AgentRuntimeOptions> } = {},
): Promise<HarnessRun> {
  const composition = compose({ name: "test", plugins, ...(options.order ? { order: options.order } : {}) }, options.compose ?? {});
  const model = new ScriptedChatModel({ script, faults: options.faults ?? [] });
  const runtime = createAgentRuntime(composition, { model, ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}), ...(options.runtime ?? {}) });
  const events: StreamEventRecord[] = [];
  const journal: JournalRecord[] = [];
  const requests: ModelRequestRecord[] = [];
  const scope = new RunScope("run-1", "thread-1", steppingClock(0), { event: (e) => events.push(e), journal: (j) => journal.push(j), modelRequest: (r) => requests.push(r) });
  const result = await runtime.run({ threadId: "thread-1", runId: "run-1", input: options.input ?? "go", scope, ...(options.signal ? { signal: options.signal } : {}) });
  return { ...result, events, journal, requests, model };
}
