/**
 * The end of a run that pauses at a static interrupt (or after a hook's `interrupt()` was
 * deferred to its own step, agent-node.ts): the step before the pause knows the graph
 * stops after it, so the afterAgent chain runs in that step and its updates are
 * checkpointed with it. A resume run's own end runs the chain again.
 */
import type { LoopState, RunDeps } from "./loop-state.js";
import { pausesAt } from "./pause.js";
import type { WorkingChannels } from "./working-channels.js";

/** Will LangGraph stop the graph once this step of `node` ended (routing to `loop.route`)? */
export function pausesAfterStep(deps: RunDeps, node: string, loop: LoopState): boolean {
  if (loop.route === "end") return false;
  if (loop.afterModelPaused) return true;
  return pausesAt(deps.interrupts?.after, node) || pausesAt(deps.interrupts?.before, loop.route);
}

export async function runAfterAgentAtPause(deps: RunDeps, loop: LoopState, local: WorkingChannels): Promise<void> {
  await deps.hooks.runStateChain("afterAgent", local, loop.turn);
}
