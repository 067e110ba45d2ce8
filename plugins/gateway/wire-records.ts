import type { AssistantRecord, AssistantVersionRecord } from "../../kernel/assistants/types.js";
import type { RunRecord, ThreadRecord } from "../../kernel/runs/types.js";

/**
 * Keel records in LangGraph Platform's snake_case shapes (what `@langchain/langgraph-sdk`
 * types as `Thread`, `Run`, `Assistant`), plus Keel's `outcome` (status@2) on runs.
 */

export function threadToWire(thread: ThreadRecord, values: Record<string, unknown> = {}, interrupts: Record<string, unknown[]> = {}) {
  return {
    thread_id: thread.threadId,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    state_updated_at: thread.updatedAt,
    metadata: thread.metadata,
    status: thread.status,
    values,
    interrupts,
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

/** An assistant as LangGraph's `Assistant` (system assistants: `metadata.created_by: "system"`). */
export function assistantToWire(assistant: AssistantRecord) {
  return { ...assistantVersionToWire(assistant), updated_at: assistant.updatedAt };
}

/** One version of an assistant as LangGraph's `AssistantVersion`. */
export function assistantVersionToWire(version: AssistantVersionRecord) {
  return {
    assistant_id: version.assistantId,
    graph_id: version.graphId,
    name: version.name,
    description: version.description,
    config: version.config,
    context: version.context,
    metadata: version.metadata,
    version: version.version,
    created_at: version.createdAt,
  };
}

/** Does `metadata` contain every key of `filter` with an equal (JSON) value? */
export function metadataMatches(metadata: Record<string, unknown>, filter: Record<string, unknown> | null | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value));
}
