/**
 * LangGraph's `tools` stream mode (LangGraph 1.7.3's `StreamToolsHandler`, as the LangGraph
 * Agent Server sends it): per tool call `on_tool_start` `{ toolCallId, name, input }` (the
 * arguments as JSON text, as LangChain's callbacks give them), then `on_tool_end`
 * `{ toolCallId, name, output }` (the tool message as a dict) or `on_tool_error`
 * `{ toolCallId, name, error }`. Keel's tools are not LangChain runnables, so the tools step
 * sends these itself, only when the run's client asked for `tools`; and, when it asked for
 * `events`, tells LangChain's callbacks of the call (as a LangChain tool would), so that
 * `streamEvents` has its `on_tool_start` / `on_tool_end` / `on_tool_error`.
 */
import { CallbackManager, type CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { ToolMessage } from "@langchain/core/messages";
import { ensureConfig } from "@langchain/core/runnables";
import type { ToolCall } from "../plugin/types.js";
import type { RunDeps } from "./loop-state.js";
import type { StreamRequest } from "./run-scope.js";
import { agentEventName } from "./stream-graph.js";
import { plain } from "./stream-payloads.js";

export interface ToolEvents {
  end(message: ToolMessage): Promise<void>;
  error(error: unknown): Promise<void>;
}

const SILENT: ToolEvents = Object.freeze({ end: async () => undefined, error: async () => undefined });

/** Whether the tools step reports its calls at all: the run's client asked for `tools` or `events`. */
export function reportsToolCalls(stream: StreamRequest): boolean {
  return stream.modes.includes("tools") || stream.modes.includes("events");
}

/** Start one call's events; the returned handle sends its end or error (nothing at all when neither `tools` nor `events` was asked for). */
export async function startToolEvents(deps: Pick<RunDeps, "scope" | "agent">, call: ToolCall): Promise<ToolEvents> {
  const modes = deps.scope.stream.modes;
  const parts = [modes.includes("tools") ? toolsModeEvents(deps, call) : undefined, modes.includes("events") ? await callbackEvents(call) : undefined].filter((p): p is ToolEvents => p !== undefined);
  if (parts.length === 0) return SILENT;
  return { end: async (message) => void (await Promise.all(parts.map((p) => p.end(message)))), error: async (error) => void (await Promise.all(parts.map((p) => p.error(error)))) };
}

function toolsModeEvents(deps: Pick<RunDeps, "scope" | "agent">, call: ToolCall): ToolEvents | undefined {
  const event = agentEventName("tools", deps.agent, deps.scope.stream);
  if (event === undefined) return undefined;
  const base = { toolCallId: call.id, name: call.name };
  deps.scope.emit(event, { event: "on_tool_start", ...base, input: JSON.stringify(call.args) });
  return {
    end: async (message) => void deps.scope.emit(event, { event: "on_tool_end", ...base, output: toolMessageDict(message) }),
    error: async (error) => void deps.scope.emit(event, { event: "on_tool_error", ...base, error: { error: (error as Error)?.name ?? "Error", message: (error as Error)?.message ?? String(error) } }),
  };
}

/** The call as a LangChain tool run under the node's callbacks (the ambient config, as a LangChain tool finds it). */
async function callbackEvents(call: ToolCall): Promise<ToolEvents | undefined> {
  const config = ensureConfig();
  const manager = CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
  const run: CallbackManagerForToolRun | undefined = await manager?.handleToolStart({ lc: 1, type: "not_implemented", id: ["keel", "tool", call.name] }, call.args as never, undefined, undefined, undefined, undefined, call.name, call.id);
  if (!run) return undefined;
  return { end: (message) => run.handleToolEnd(message), error: (error) => run.handleToolError(error) };
}

/** The tool message as LangGraph's `tools` mode writes it: without the message id (LangChain's tool output has none yet). */
function toolMessageDict(message: ToolMessage): Record<string, unknown> {
  const { id: _id, ...dict } = plain<Record<string, unknown>>(message);
  return dict;
}
