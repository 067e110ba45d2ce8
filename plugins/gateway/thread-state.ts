import type { ThreadRecord } from "../../kernel/runs/types.js";
import type { GatewayContext } from "./context.js";
import { HttpError } from "./http-errors.js";
import type { StateUpdate, ThreadCheckpoints, ThreadStateWire } from "./thread-checkpoints.js";
import { publicValues } from "./wire-json.js";

/**
 * `GET /threads/:tid/state` in LangGraph's ThreadState shape. With the gateway's checkpoint
 * reader (`deps.threadState`) it is the checkpoint's own state (id, parent, metadata,
 * `next`); without one, the executor's values with the checkpoint addressed by thread.
 * An empty thread's checkpoint is addressed by thread with a null id.
 */
export async function threadStateView(ctx: GatewayContext, thread: ThreadRecord, options: { checkpointId?: string; subgraphs?: boolean } = {}): Promise<ThreadStateWire | null> {
  const reader = ctx.deps.threadState;
  if (reader) return reader.state(thread.threadId, await threadStack(ctx, thread), options);
  if (options.checkpointId) throw stateUnavailable();
  return {
    values: publicValues(await ctx.deps.runs.getThreadState(thread.threadId)),
    next: [],
    checkpoint: { thread_id: thread.threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
    metadata: {},
    created_at: null,
    parent_checkpoint: null,
    tasks: [],
  };
}

/** The thread's current values (what `GET /threads/:tid` and search answer). */
export async function threadValues(ctx: GatewayContext, thread: ThreadRecord): Promise<Record<string, unknown>> {
  return (await threadStateView(ctx, thread))?.values ?? {};
}

/**
 * The thread's values and, as LangGraph's server keeps them on a thread, its pending
 * tasks' interrupts by task id (`{}` unless the thread is `interrupted`).
 */
export async function threadValuesAndInterrupts(ctx: GatewayContext, thread: ThreadRecord): Promise<{ values: Record<string, unknown>; interrupts: Record<string, unknown[]> }> {
  const state = await threadStateView(ctx, thread);
  const interrupts: Record<string, unknown[]> = {};
  if (thread.status === "interrupted") for (const task of (state?.tasks ?? []) as Array<{ id: string; interrupts?: unknown[] }>) interrupts[task.id] = task.interrupts ?? [];
  return { values: state?.values ?? {}, interrupts };
}

/** The checkpoint reader, or 501 when the gateway was built without one. */
export function checkpointReader(ctx: GatewayContext): ThreadCheckpoints {
  const reader = ctx.deps.threadState;
  if (!reader) throw stateUnavailable();
  return reader;
}

function stateUnavailable(): HttpError {
  return new HttpError(501, "KEEL_ERR_HTTP_THREAD_STATE_UNAVAILABLE", "this server reads no thread checkpoints: it was built without `deps.threadState`");
}

/**
 * Which stack's channels the thread's state has: its `metadata.graph_id` when that is a
 * served stack (as LangGraph reads a thread's graph), else the assistant of its newest
 * run, else the first stack served.
 */
export async function threadStack(ctx: GatewayContext, thread: ThreadRecord): Promise<string> {
  const stacks = ctx.deps.threadState?.stacks ?? ctx.stacks;
  const graphId = thread.metadata.graph_id;
  if (typeof graphId === "string" && stacks.includes(graphId)) return graphId;
  const [latest] = await ctx.deps.store.listRuns(thread.threadId, { limit: 1, offset: 0 });
  if (latest && stacks.includes(latest.assistantId)) return latest.assistantId;
  return stacks[0] ?? "";
}

/** A state write may not race a run: LangGraph's 409 "Thread is busy" (Keel's run-active code). */
export async function assertNoActiveRun(ctx: GatewayContext, threadId: string): Promise<void> {
  const active = await ctx.deps.store.activeRuns(threadId);
  if (active.length > 0) {
    throw new HttpError(409, "KEEL_ERR_HTTP_RUN_ACTIVE", `thread \`${threadId}\` has a pending or running run (\`${active[0]!.runId}\`); update its state once the run ended`);
  }
}

/**
 * The updates of a state write, checked: every key must be a channel a client may write on
 * this stack — a runtime-owned channel (evidence: receipts, delegations, stop reasons, bash
 * runs, usage) or Keel's message metadata is 400 `KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL`, an
 * unknown channel 400 `KEEL_ERR_HTTP_INVALID_BODY`, each with the pointer. `values` may be
 * one object or, as LangGraph accepts, a list of them.
 */
export function checkedValues(reader: ThreadCheckpoints, stack: string, values: unknown, pointer: string): StateUpdate["values"] {
  if (values === null || values === undefined) return null;
  const { writable, owned } = reader.channels(stack);
  const objects = Array.isArray(values) ? values.map((v, i) => [v, `${pointer}/${i}`] as const) : [[values, pointer] as const];
  for (const [object, at] of objects) {
    for (const [key, value] of Object.entries(object as Record<string, unknown>)) {
      const where = `${at}/${escapePointer(key)}`;
      if (owned.has(key) || key.startsWith("__")) {
        throw new HttpError(400, "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", `\`${key}\` is written only by the runtime: a state write cannot set it (evidence cannot be forged through the API)`, where);
      }
      if (!writable.has(key)) {
        throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `\`${key}\` is not a channel of the \`${stack}\` stack (writable: ${[...writable].sort().join(", ")})`, where);
      }
      if (key === "messages") assertNoKeelMessageMetadata(value, where);
    }
  }
  return values as StateUpdate["values"];
}

/** Keel's message metadata (`additional_kwargs.keel`: receipts, verdicts) is stamped by the runtime only. */
function assertNoKeelMessageMetadata(messages: unknown, pointer: string): void {
  const list = Array.isArray(messages) ? messages : [messages];
  list.forEach((message, i) => {
    if (message === null || typeof message !== "object") return;
    const m = message as { additional_kwargs?: unknown; kwargs?: { additional_kwargs?: unknown } };
    const at = Array.isArray(messages) ? `${pointer}/${i}` : pointer;
    for (const [kwargs, path] of [
      [m.additional_kwargs, `${at}/additional_kwargs/keel`],
      [m.kwargs?.additional_kwargs, `${at}/kwargs/additional_kwargs/keel`],
    ] as const) {
      if (kwargs !== null && typeof kwargs === "object" && Object.hasOwn(kwargs, "keel")) {
        throw new HttpError(400, "KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL", "a message's `additional_kwargs.keel` (receipts, verdicts) is stamped by the runtime only", path);
      }
    }
  });
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
