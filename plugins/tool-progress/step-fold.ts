import type { HookContext } from "../../kernel/plugin/types.js";
import type { ToolProgressValue } from "./progress-state.js";

/**
 * The calls of one tools step run in parallel and all see the same snapshot of
 * `toolProgress`. So that N parallel calls count as N results (not 1), the calls of a step
 * share one working value: each folds its result into it (in the order results arrive)
 * and writes the shared object. The kernel applies wrapToolCall updates only after every
 * call of the step has finished (kernel/loop/tools-node.ts), so whichever write is applied
 * last carries every result of the step.
 */
interface StepFold {
  snapshot: ToolProgressValue | undefined;
  value: ToolProgressValue;
}

/** Keyed by the run's AbortSignal so a finished run's folds are garbage-collected with it. */
const folds = new WeakMap<AbortSignal, Map<string, StepFold>>();

function cloneValue(snapshot: ToolProgressValue | undefined, runId: string): ToolProgressValue {
  const hints = snapshot?.hints?.runId === runId ? { ...snapshot.hints } : { runId, count: 0 };
  return { tools: { ...(snapshot?.tools ?? {}) }, hints };
}

export function stepFold(ctx: HookContext, snapshot: ToolProgressValue | undefined): ToolProgressValue {
  let perSignal = folds.get(ctx.signal);
  if (!perSignal) folds.set(ctx.signal, (perSignal = new Map()));
  const agentKey = `${ctx.threadId}\u0000${ctx.runId}\u0000${ctx.agent}\u0000`;
  const key = `${agentKey}${ctx.turn}`;
  const existing = perSignal.get(key);
  if (existing && existing.snapshot === snapshot) return existing.value;
  // A new step of this agent: earlier steps' folds are done.
  for (const old of [...perSignal.keys()]) if (old.startsWith(agentKey)) perSignal.delete(old);
  const fold = { snapshot, value: cloneValue(snapshot, ctx.runId) };
  perSignal.set(key, fold);
  return fold.value;
}
