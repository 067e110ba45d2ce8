/**
 * The checkpointer as the agent loop uses it: before every `put` / `putWrites` whose config
 * carries a lease fence (`configurable.keel_fence`, a RunFence with `assertHeld`), the
 * fence is checked locally, so a worker that lost its lease writes no checkpoint with any
 * saver (MemorySaver and LangGraph's stock savers included). A saver that knows the run
 * store (store-sql's) checks the same fence again in the write's own transaction.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";

export const FENCE_CONFIG_KEY = "keel_fence";

function assertFence(config: RunnableConfig | undefined): void {
  const fence = (config?.configurable as Record<string, unknown> | undefined)?.[FENCE_CONFIG_KEY] as { assertHeld?: (what?: string) => void } | undefined;
  if (typeof fence?.assertHeld === "function") fence.assertHeld("a checkpoint write");
}

/** `saver` with the local fence check in front of its writes (reads and everything else pass through). */
export function fencedSaver(saver: BaseCheckpointSaver): BaseCheckpointSaver {
  return new Proxy(saver, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "put" || prop === "putWrites") {
        return (config: RunnableConfig, ...rest: unknown[]) => {
          assertFence(config);
          return (value as (...args: unknown[]) => unknown).call(target, config, ...rest);
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
