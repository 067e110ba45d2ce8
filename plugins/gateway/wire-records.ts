import type { RunRecord, ThreadRecord } from "../../kernel/runs/types.js";

/**
 * Keel records in LangGraph Platform's snake_case shapes (what `@langchain/langgraph-sdk`
 * types as `Thread`, `Run`, `Assistant`), plus Keel's `outcome` (status@2) on runs.
 */

export function threadToWire(thread: ThreadRecord, values: Record<string, unknown> = {}) {
  return {
    thread_id: thread.threadId,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    state_updated_at: thread.updatedAt,
    metadata: thread.metadata,
    status: thread.status,
    values,
    interrupts: {},
  };
}

export function runToWire(run: RunRecord) {
  const request = run.request;
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: run.assistantId,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    status: run.status,
    metadata: request.metadata ?? {},
    multitask_strategy: run.multitaskStrategy,
    kwargs: {
      input: request.input ?? null,
      config: request.config ?? {},
      context: request.context ?? {},
      stream_mode: request.streamMode ?? [],
      on_disconnect: request.onDisconnect ?? "cancel",
      ...(request.maxTurns !== undefined ? { max_turns: request.maxTurns } : {}),
      ...(request.checkpointId !== undefined ? { checkpoint_id: request.checkpointId } : {}),
    },
    ...(run.outcome ? { outcome: run.outcome } : {}),
  };
}

export function assistantToWire(stack: string, createdAt: string, description?: string) {
  return {
    assistant_id: stack,
    graph_id: stack,
    name: stack,
    description: description ?? `Keel agent on the \`${stack}\` stack`,
    config: {},
    context: {},
    metadata: {},
    version: 1,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** Does `metadata` contain every key of `filter` with an equal (JSON) value? */
export function metadataMatches(metadata: Record<string, unknown>, filter: Record<string, unknown> | null | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value));
}
