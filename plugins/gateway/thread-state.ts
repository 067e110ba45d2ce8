import type { GatewayContext } from "./context.js";
import { publicValues } from "./wire-json.js";

/**
 * `GET /threads/:tid/state` in LangGraph's ThreadState shape. Keel's agent loop runs to
 * the end of each run, so there is never a `next` node or a pending task; the checkpoint
 * is addressed by thread (Keel keeps one line of history per thread).
 */
export async function threadStateView(ctx: GatewayContext, threadId: string) {
  const values = publicValues(await ctx.deps.runs.getThreadState(threadId));
  return {
    values,
    next: [] as string[],
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
    metadata: {},
    created_at: null,
    parent_checkpoint: null,
    tasks: [] as unknown[],
  };
}
