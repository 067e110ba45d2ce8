import { isKeelError } from "../errors.js";
import type { WorkingChannels } from "./working-channels.js";
import type { LoopState, RunDeps } from "./loop-state.js";
import { ModelCallError } from "./model-call.js";
import type { RunError } from "./status.js";

/** End of the run: the afterAgent chain (reverse order), then route to END. */
export async function finishRun(deps: RunDeps, loop: LoopState, local: WorkingChannels): Promise<void> {
  loop.route = "end";
  await deps.hooks.runStateChain("afterAgent", local, loop.turn);
}

/** The `error` of status@2 for a fault that ended the run. */
export function toRunError(error: unknown): RunError {
  if (error instanceof ModelCallError) return { type: "KEEL_ERR_MODEL_FAILED", message: error.message, retryable: error.retryable };
  if (isKeelError(error)) return { type: error.code, message: error.message, retryable: false };
  const message = error instanceof Error ? error.message : String(error);
  return { type: "KEEL_ERR_PLUGIN_FAILED", message, retryable: false };
}
