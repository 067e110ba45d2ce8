import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { isGraphInterrupt } from "@langchain/langgraph";
import type { ChannelUpdate } from "../plugin/types.js";
import { freezeListOfFrozen, freezeWritten } from "./enforcement.js";
import { finishRun } from "./finish.js";
import type { LoopState, RunDeps } from "./loop-state.js";
import { setKeelMeta } from "./message-meta.js";
import { modelInvoker } from "./model-call.js";
import { normalizeUsage } from "./normalize.js";
import type { StopReasonEntry } from "./status.js";
import { actOnStops, describeStops, stripToolCalls } from "./stops.js";
import { hasToolCalls, newestAssistant } from "./step-messages.js";
import type { WorkingChannels } from "./working-channels.js";

/**
 * One LangGraph node per model phase: beforeModel chain → wrapModelCall onion → model →
 * afterModel chain, then the kernel acts on stop requests and routes.
 */
export async function agentStep(deps: RunDeps, loop: LoopState, local: WorkingChannels): Promise<void> {
  if (!loop.started) {
    await deps.hooks.runStateChain("beforeAgent", local, 0);
    loop.started = true;
  }
  // The afterModel chain of the last model call paused (`interrupt()`): it runs again, alone, in this step.
  if (loop.afterModelPaused) {
    loop.afterModelPaused = false;
    return afterModelPhase(deps, loop, local, loop.forced !== null);
  }
  const turn = loop.turn + 1;
  await deps.hooks.runStateChain("beforeModel", local, turn);
  actOnStops(deps, loop, local, null);
  if (loop.route === "end") return finishRun(deps, loop, local);

  const tools = [...deps.tools.values()].map((b) => b.tool);
  // The maxTurns-th call is always the forced final one. Its stop reason is recorded when the
  // cap withheld tools, or (below) when the forced answer still asked for tools that were discarded.
  const cap: StopReasonEntry = { reason: "turn_capped", by: "kernel", turn, limit: { type: "turns", value: deps.maxTurns }, request: "final" };
  const atCap = !loop.forced && turn >= deps.maxTurns;
  let capRecorded = false;
  const recordCap = () => {
    local.apply({ stopReasons: [cap] });
    loop.stopsSeen = (local.get<unknown[]>("stopReasons") ?? []).length;
    capRecorded = true;
  };
  if (atCap) {
    if (tools.some((t) => !deps.protectedTools.has(t.name))) recordCap();
    loop.forced = [cap];
  }
  const forced = loop.forced;
  const bound = forced ? tools.filter((t) => deps.protectedTools.has(t.name)) : tools;
  const messages = local.get<BaseMessage[]>("messages") ?? [];
  const list = forced ? [...messages, forcedInstruction(forced, bound.map((t) => t.name))] : [...messages];
  // The thread's messages are frozen already (when written): the request's list is not walked message by message.
  if (local.enforce && forced) freezeWritten(list.at(-1));
  const request = { messages: local.enforce ? freezeListOfFrozen(list) : list, tools: bound, state: {}, forced: forced !== null };

  const updates: Array<[string, ChannelUpdate]> = [];
  let response = await deps.hooks.modelOnion(modelInvoker(deps, turn), local, turn, updates)(request);
  for (const [plugin, update] of updates) local.apply(update, `plugin \`${plugin}\` (wrapModelCall)`);
  loop.turn = turn;
  if (forced) {
    // Tool calls in a forced final answer are discarded (a protected call such as a child's return_result is kept).
    const asked = response.tool_calls?.length ?? 0;
    response = setKeelMeta(stripToolCalls(response, deps.protectedTools), { forced: true }) as AIMessage;
    if (atCap && !capRecorded && (response.tool_calls?.length ?? 0) < asked) recordCap();
  }
  const usage = normalizeUsage(response);
  local.apply({ messages: [response], usage: { [deps.agent]: usage } });

  const beforeAfterModel = local.mark();
  deps.hooks.deferInterrupts = true;
  try {
    await afterModelPhase(deps, loop, local, forced !== null);
  } catch (error) {
    if (!isGraphInterrupt(error)) throw error;
    // A hook paused (`interrupt()`, e.g. an approval of the calls just made). LangGraph re-runs an
    // interrupted step on resume, which would call the model again: this step keeps the model's
    // answer instead and ends, and the next step runs the afterModel chain again on its own —
    // that one pauses, and on resume `interrupt()` answers there. The chain's partial updates are undone.
    beforeAfterModel();
    loop.afterModelPaused = true;
    loop.route = "agent";
  } finally {
    deps.hooks.deferInterrupts = false;
  }
}

/** The afterModel chain of the newest model answer, then the kernel acts on stop requests and routes. */
async function afterModelPhase(deps: RunDeps, loop: LoopState, local: WorkingChannels, forced: boolean): Promise<void> {
  await deps.hooks.runStateChain("afterModel", local, loop.turn);
  if (forced) {
    loop.endAfterTools = true;
    loop.route = hasToolCalls(local) ? "tools" : "end";
  } else {
    actOnStops(deps, loop, local, newestAssistant(local)?.message ?? null);
  }
  if (loop.route === "end") return finishRun(deps, loop, local);
}

/** What the forced call may still use: nothing, or the tools that stay bound (protected tools such as a child's `return_result`). */
function toolsLeft(bound: readonly string[]): string {
  if (bound.length === 0) return "No tools are available any more. Answer with your final report";
  const names = bound.map((name) => `\`${name}\``).join(", ");
  const one = bound.length === 1;
  return `${one ? `The only tool still available is ${names}` : `The only tools still available are ${names}`}; use ${one ? "it" : "them"} now to hand back your final report`;
}

function forcedInstruction(reasons: readonly StopReasonEntry[], bound: readonly string[]): HumanMessage {
  const message = new HumanMessage(
    `[KEEL STOP] This run must end now: ${describeStops(reasons)}. ${toolsLeft(bound)}: ` +
      "what is done (with evidence), what is not done, and what is uncertain.",
  );
  return setKeelMeta(message, { hidden: true }) as HumanMessage;
}
