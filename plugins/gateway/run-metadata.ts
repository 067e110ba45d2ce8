import type { AssistantRecord } from "../../kernel/assistants/types.js";
import type { ThreadRecord } from "../../kernel/runs/types.js";
import type { GatewayContext } from "./context.js";

type Metadata = Record<string, unknown>;

/**
 * LangGraph's metadata stamps on a run's admission (its run store's `put`): the thread the
 * run is created on gets `graph_id` and `assistant_id` (unless a run of it is already
 * pending or running: a queued run stamps nothing), and the run's metadata is the
 * assistant's metadata, then the thread's (stamps included), then the request's — so a
 * system assistant's runs carry `created_by: "system"`. A thread the run creates
 * (threadless runs, `if_not_exists: "create"`) starts with the stamps plus the request's
 * metadata, and its run's metadata holds no thread metadata, as there.
 */
export function assistantStamps(assistant: Pick<AssistantRecord, "graphId" | "assistantId">): Metadata {
  return { graph_id: assistant.graphId, assistant_id: assistant.assistantId };
}

/** The run's metadata; `thread` is the existing thread before the run (null: created for it). */
export function runMetadata(assistant: Pick<AssistantRecord, "graphId" | "assistantId" | "metadata">, thread: ThreadRecord | null, request: Metadata | undefined): Metadata {
  const threadPart = thread ? { ...thread.metadata, ...(thread.status === "busy" ? {} : assistantStamps(assistant)) } : {};
  return { ...(assistant.metadata ?? {}), ...threadPart, ...(request ?? {}) };
}

/** After the admission: stamp the thread that was not busy (merged into its metadata, as `PATCH` merges). */
export async function stampThread(ctx: GatewayContext, before: ThreadRecord, assistant: Pick<AssistantRecord, "graphId" | "assistantId">): Promise<void> {
  if (before.status === "busy") return;
  const stamps = assistantStamps(assistant);
  const current = await ctx.deps.store.getThread(before.threadId);
  if (!current || Object.entries(stamps).every(([key, value]) => current.metadata[key] === value)) return;
  await ctx.deps.store.updateThread(current.threadId, { metadata: { ...current.metadata, ...stamps } }, ctx.now());
}
