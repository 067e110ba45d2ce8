import { compose } from "../../kernel/compose/index.js";
import type { ModelRequestRecord, StreamEventRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../tools/testing/scripted-model.js";

/** A service plugin with tools that echo their name and arguments. */
export function echoTools(...names: string[]): Plugin {
  return definePlugin({
    manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "echo tools", hooks: {} },
    tools: names.map((name) => ({ name, description: name, schema: { type: "object" }, invoke: (args: Record<string, unknown>) => `${name}:${JSON.stringify(args)}` })),
  });
}

/**
 * One plugin under test (with its options) plus echo tools, on a scripted model; `run`
 * starts a run on thread `t1` and the model requests and events are collected.
 */
export function pluginRuntime(plugin: Plugin, config: Record<string, unknown>, turns: ScriptedTurn[], tools: string[] = ["echo"]) {
  const composition = compose({ name: "t", plugins: [echoTools(...tools), plugin] }, { config: [{ [plugin.manifest.name]: config }] });
  const requests: ModelRequestRecord[] = [];
  const events: StreamEventRecord[] = [];
  const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: { turns } }) });
  const run = (runId: string, input: string) => runtime.run({ threadId: "t1", runId, input, sink: { modelRequest: (r) => requests.push(r), event: (e) => events.push(e) } });
  return { run, requests, events };
}
