import type { AssistantRecord, AssistantStore } from "../../kernel/assistants/types.js";
import type { CronFireMetadata } from "../../kernel/runs/cron-scheduler.js";
import type { ThreadRecord } from "../../kernel/runs/types.js";
import { SYSTEM_OWNER } from "./assistant-registry.js";
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

/**
 * The same stamps for a cron's fires (the run service's, not a route): the `fireMetadata`
 * of a `CronScheduler`. The fire's run gets `runMetadata` of the cron's assistant (a served
 * stack is a system assistant, `created_by: "system"`; a user assistant's metadata as it is at
 * the fire), the thread before the fire, and the cron's metadata plus `cron_id`; the thread
 * gets `graph_id` and `assistant_id` unless busy (a queued fire stamps nothing), as a run
 * created on it through the routes would.
 */
export function cronFireMetadata(deps: { stacks: readonly string[]; assistants?: AssistantStore }): CronFireMetadata {
  return async (cron, thread, metadata) => {
    const assistant = await cronAssistant(deps, cron.assistantId);
    return { run: runMetadata(assistant, thread, metadata), thread: thread?.status === "busy" ? {} : assistantStamps(assistant) };
  };
}

async function cronAssistant(deps: { stacks: readonly string[]; assistants?: AssistantStore }, assistantId: string): Promise<Pick<AssistantRecord, "graphId" | "assistantId" | "metadata">> {
  if (deps.stacks.includes(assistantId)) return { graphId: assistantId, assistantId, metadata: { created_by: SYSTEM_OWNER } };
  const found = await deps.assistants?.getAssistant(assistantId);
  // A deleted assistant: its fire fails when it starts (its stack is unknown); the id still names it.
  return found ?? { graphId: assistantId, assistantId, metadata: {} };
}
