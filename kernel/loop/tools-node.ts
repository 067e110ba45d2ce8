import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isGraphPause } from "./pause.js";
import { canonicalJson, sha256Hex } from "../hashing.js";
import type { ChannelUpdate, ToolCall, ToolHandler, ToolOutput } from "../plugin/types.js";
import { finishRun } from "./finish.js";
import type { WorkingChannels } from "./working-channels.js";
import type { LoopState, RunDeps } from "./loop-state.js";
import { lastAssistant, messageText } from "./message-meta.js";
import { actOnStops } from "./stops.js";
import { insideToolCall } from "../observe/observed.js";
import { reportsToolCalls, startToolEvents } from "./tools-mode.js";

/**
 * The tools phase as one node: every call of the last assistant message runs through
 * the wrapToolCall onion, in parallel; results are appended and hook updates applied
 * in tool-call order. Calls that already have a result (e.g. refused in afterModel) are skipped.
 */
export async function toolsStep(deps: RunDeps, loop: LoopState, local: WorkingChannels): Promise<void> {
  const ai = lastAssistant(local.get<BaseMessage[]>("messages") ?? []);
  // A call is skipped when any result in the thread answers its id (the history's index knows, no scan).
  const calls: ToolCall[] = (ai?.tool_calls ?? [])
    .filter((c) => !local.hasToolResult(c.id ?? ""))
    .map((c, i) => ({ id: c.id ?? `${ai!.id}:call:${i + 1}`, name: c.name, args: (c.args ?? {}) as Record<string, unknown> }));

  const results = await Promise.all(
    calls.map(async (toolCall, index) => {
      const updates: Array<[string, ChannelUpdate]> = [];
      const handler = deps.hooks.toolOnion(toolInvoker(deps, loop.turn), local, loop.turn, updates);
      const message = await handler({ toolCall, index, tool: deps.tools.get(toolCall.name)?.tool, state: {} });
      return { toolCall, message, updates };
    }),
  );
  let terminal = false;
  for (const { toolCall, message, updates } of results) {
    local.apply({ messages: [message] });
    for (const [plugin, update] of updates) local.apply(update, `plugin \`${plugin}\` (wrapToolCall)`);
    if (deps.terminalTools.has(toolCall.name) && message.status !== "error") terminal = true;
  }
  if (terminal || loop.endAfterTools) return finishRun(deps, loop, local);
  actOnStops(deps, loop, local, null);
  if (loop.route === "end") return finishRun(deps, loop, local);
}

function toToolMessage(output: ToolOutput, call: ToolCall): ToolMessage {
  const normalized = typeof output === "string" ? { content: output } : output;
  return new ToolMessage({
    id: `${call.id}:result`,
    tool_call_id: call.id,
    name: call.name,
    content: normalized.content,
    status: normalized.status ?? "success",
    ...(normalized.artifact === undefined ? {} : { artifact: normalized.artifact }),
  });
}

/** Innermost tool handler: unknown tools and tool exceptions become error results (the run goes on). */
export function toolInvoker(deps: RunDeps, turn: number): ToolHandler {
  return async ({ toolCall, tool }) => {
    const observed = deps.observation.toolCall({ turn, toolCallId: toolCall.id, name: toolCall.name, ...(tool?.description ? { description: tool.description } : {}) });
    const started = performance.now();
    let message: ToolMessage;
    let errorType: string | undefined;
    if (!tool) {
      errorType = "KEEL_ERR_TOOL_UNKNOWN";
      const known = [...deps.tools.keys()].join(", ") || "none";
      message = toToolMessage({ content: `KEEL_ERR_TOOL_UNKNOWN: there is no tool \`${toolCall.name}\`; available tools: ${known}`, status: "error" }, toolCall);
    } else {
      const owner = deps.tools.get(toolCall.name)?.owner;
      const config = (owner && deps.composition.plugins.get(owner)?.config) || {};
      // Only a run that asked for `tools` or `events` reports its calls (no extra await otherwise).
      const events = reportsToolCalls(deps.scope.stream) ? await startToolEvents(deps, toolCall) : undefined;
      try {
        const output = await insideToolCall(deps.observer, observed, async () => tool.invoke(toolCall.args, {
          threadId: deps.threadId,
          runId: deps.scope.runId,
          agent: deps.agent,
          turn,
          toolCallId: toolCall.id,
          config,
          signal: deps.signal,
          ...(deps.fence ? { fence: deps.fence } : {}),
          ...(deps.user !== undefined ? { user: deps.user } : {}),
          now: () => deps.scope.isoNow(),
          port: <T>(name: string) => deps.port<T>(name),
        }));
        message = toToolMessage(output, toolCall);
        await events?.end(message);
      } catch (error) {
        // A tool that pauses (`interrupt()`) pauses the run; its step runs again on resume.
        if (isGraphPause(error)) throw error;
        await events?.error(error);
        errorType = "KEEL_ERR_TOOL_FAILED";
        message = toToolMessage({ content: `KEEL_ERR_TOOL_FAILED: tool \`${toolCall.name}\` threw: ${(error as Error)?.message ?? String(error)}`, status: "error" }, toolCall);
      }
    }
    const status = message.status === "error" ? "error" : "success";
    observed.end({ status, ...(errorType ? { errorType } : {}) });
    deps.scope.journal({
      agent: deps.agent,
      turn,
      kind: "tool_call",
      name: toolCall.name,
      status: message.status ?? "success",
      argsSha256: sha256Hex(canonicalJson(toolCall.args)),
      outputSha256: sha256Hex(messageText(message)),
      durationMs: Math.round(performance.now() - started),
    });
    return message;
  };
}
