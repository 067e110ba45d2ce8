/**
 * A thread's LangGraph checkpoints as the thread-state routes read and write them: the
 * state at the head or at a checkpoint, the history, state updates (`as_node`, a fork
 * from an older checkpoint, create-time supersteps), copies and pruning.
 *
 * Reads and writes go through a state graph with the agent loop's channels and nodes
 * (`agent`, `tools`) over the server's checkpointer, so LangGraph itself applies each
 * channel's reducer, writes the checkpoint (metadata `source: "update"`, `step`,
 * `parents`) and computes `next`, exactly as for the loop's own checkpoints. The graph's
 * nodes never run: runs execute on the runtime's own graph.
 */
import { Annotation, END, START, StateGraph, type BaseCheckpointSaver, type StateSnapshot } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import { PSEUDO_CHANNELS } from "../../kernel/channels/kernel-channels.js";
import { initialValue, reduceChannel } from "../../kernel/channels/reducers.js";
import { runtimeOwnedChannels } from "../../kernel/compose/runtime-owned.js";
import type { Composition } from "../../kernel/compose/types.js";
import { portProvider } from "../../kernel/ports/resolve.js";
import { ROLLBACK_PORT } from "../../kernel/ports/rollback.js";
import { pendingNodes } from "../../kernel/loop/pause.js";
import { publicValues, toWireValue } from "./wire-json.js";

/** The loop's own bookkeeping channel (the runtime's `__keel`): carried along, never shown or written. */
const LOOP_CHANNEL = "__keel";
/** Kernel channels a client may not write: the stop reasons and usage are evidence, the run identity is the runtime's. */
const KERNEL_OWNED = ["stopReasons", "usage", "runMeta"] as const;
/** What a copied or pruned checkpoint without metadata gets (savers always store some). */
const NO_METADATA = { source: "update" as const, step: -1, parents: {} };

/** LangGraph's checkpoint address (`Checkpoint` in the SDK). */
export interface CheckpointWire {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

/** What a state update answers: the new head's address (`checkpoint_map` only when the saver set one). */
export type UpdatedCheckpoint = Omit<CheckpointWire, "checkpoint_map"> & { checkpoint_map?: Record<string, unknown> };

/** LangGraph's ThreadState. */
export interface ThreadStateWire {
  values: Record<string, unknown>;
  next: string[];
  checkpoint: CheckpointWire;
  metadata: Record<string, unknown>;
  created_at: string | null;
  parent_checkpoint: CheckpointWire | null;
  tasks: unknown[];
}

/** One update of a superstep: values written as if node `asNode` had just run. */
export interface StateUpdate {
  values: Record<string, unknown> | null;
  asNode?: string;
}

export interface HistoryQuery {
  limit: number;
  /** Only checkpoints older than this one. */
  before?: string;
  /** Checkpoints whose metadata holds these top-level values. */
  metadata?: Record<string, unknown>;
  /** Only this checkpoint. */
  checkpointId?: string;
}

/** What the thread-state routes need (GatewayDeps `threadState`). */
export interface ThreadCheckpoints {
  /** The stacks whose channels this knows (the assistants a thread's state may belong to). */
  readonly stacks: readonly string[];
  /** The channels a client may write on `stack`'s threads, and the runtime-owned ones it may not. */
  channels(stack: string): { writable: ReadonlySet<string>; owned: ReadonlySet<string> };
  /** Does `stack` keep files per thread (a plugin provides the `rollback` port: the workspace)? A fork does not rewind them. */
  hasWorkspace(stack: string): boolean;
  /** The id of the thread's newest checkpoint (null: none). */
  headId(threadId: string): Promise<string | null>;
  /** The state at the head (or at `checkpointId`); null when that checkpoint does not exist. */
  state(threadId: string, stack: string, options?: { checkpointId?: string; subgraphs?: boolean }): Promise<ThreadStateWire | null>;
  /** States newest first. */
  history(threadId: string, stack: string, query: HistoryQuery): Promise<ThreadStateWire[]>;
  /** Apply supersteps (each a list of updates) from the head or from `checkpointId` (a fork); the new head's address. */
  update(threadId: string, stack: string, supersteps: readonly (readonly StateUpdate[])[], checkpointId?: string): Promise<UpdatedCheckpoint>;
  /** Does the checkpoint exist? (`checkpointId` absent: does the thread have any.) */
  hasCheckpoint(threadId: string, checkpointId?: string): Promise<boolean>;
  /** Every checkpoint of `from` (ids, parents, metadata, pending writes) into the empty thread `to`. */
  copy(from: string, to: string): Promise<void>;
  /** Remove every checkpoint of the thread. */
  deleteCheckpoints(threadId: string): Promise<void>;
  /** Keep only the newest checkpoint of each namespace of the thread. */
  pruneToLatest(threadId: string): Promise<void>;
}

/** The optional fast paths of store-sql's saver (one transaction each). */
interface SaverWithCopyAndPrune extends BaseCheckpointSaver {
  copyThread(from: string, to: string): Promise<void>;
  pruneThread(threadId: string, keepLatest: number): Promise<void>;
}

function hasCopyAndPrune(saver: BaseCheckpointSaver): saver is SaverWithCopyAndPrune {
  const s = saver as Partial<SaverWithCopyAndPrune>;
  return typeof s.copyThread === "function" && typeof s.pruneThread === "function";
}

/**
 * @example
 * const threadState = createThreadCheckpoints({ checkpointer, compositions: new Map([["lead", lead]]) });
 * const app = await createGateway({ deps: { runs, store, bridge, threadState }, stacks: ["lead"], version });
 */
export function createThreadCheckpoints(options: { checkpointer: BaseCheckpointSaver; compositions: ReadonlyMap<string, Composition> }): ThreadCheckpoints {
  const { checkpointer } = options;
  const graphs = new Map<string, ReturnType<typeof stateGraph>>();
  const channelSets = new Map<string, { writable: ReadonlySet<string>; owned: ReadonlySet<string> }>();
  const graphOf = (stack: string) => {
    let graph = graphs.get(stack);
    if (!graph) {
      graph = stateGraph(compositionOf(stack), checkpointer);
      graphs.set(stack, graph);
    }
    return graph;
  };
  const compositionOf = (stack: string): Composition => {
    const composition = options.compositions.get(stack) ?? options.compositions.values().next().value;
    if (!composition) throw new Error("no composition to read thread state with");
    return composition;
  };
  const address = (threadId: string, checkpointId?: string): RunnableConfig => ({
    configurable: { thread_id: threadId, checkpoint_ns: "", ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
  });

  return {
    stacks: [...options.compositions.keys()],

    channels(stack) {
      let sets = channelSets.get(stack);
      if (!sets) {
        const composition = compositionOf(stack);
        const owned = new Set([...runtimeOwnedChannels(composition), ...KERNEL_OWNED]);
        const writable = new Set([...composition.channels.keys()].filter((name) => !PSEUDO_CHANNELS.has(name) && !owned.has(name)));
        sets = { writable, owned };
        channelSets.set(stack, sets);
      }
      return sets;
    },

    async state(threadId, stack, { checkpointId, subgraphs } = {}) {
      if (checkpointId && !(await this.hasCheckpoint(threadId, checkpointId))) return null;
      const snapshot = await graphOf(stack).getState(address(threadId, checkpointId), { subgraphs: subgraphs === true });
      return snapshotToWire(threadId, snapshot);
    },

    async history(threadId, stack, query) {
      const states: ThreadStateWire[] = [];
      const options = {
        limit: query.limit,
        ...(query.before ? { before: address(threadId, query.before) } : {}),
        ...(query.metadata ? { filter: query.metadata } : {}),
      };
      for await (const snapshot of graphOf(stack).getStateHistory(address(threadId, query.checkpointId), options)) {
        states.push(snapshotToWire(threadId, snapshot));
      }
      return states;
    },

    async update(threadId, stack, supersteps, checkpointId) {
      const steps = supersteps.map((updates) => ({ updates: updates.map((u) => ({ values: u.values, ...(u.asNode !== undefined ? { asNode: u.asNode } : {}) })) }));
      const next = (await graphOf(stack).bulkUpdateState(address(threadId, checkpointId), steps)).configurable ?? {};
      // As LangGraph's server answers it: the new head's configurable (`checkpoint_map` only when there is one).
      return {
        thread_id: threadId,
        checkpoint_ns: typeof next.checkpoint_ns === "string" ? next.checkpoint_ns : "",
        checkpoint_id: typeof next.checkpoint_id === "string" ? next.checkpoint_id : null,
        ...(next.checkpoint_map ? { checkpoint_map: next.checkpoint_map as Record<string, unknown> } : {}),
      };
    },

    hasWorkspace: (stack) => portProvider(compositionOf(stack), ROLLBACK_PORT) !== undefined,

    async headId(threadId) {
      return (await checkpointer.getTuple(address(threadId)))?.checkpoint.id ?? null;
    },

    async hasCheckpoint(threadId, checkpointId) {
      return (await checkpointer.getTuple(address(threadId, checkpointId))) !== undefined;
    },

    async copy(from, to) {
      if (hasCopyAndPrune(checkpointer)) return checkpointer.copyThread(from, to);
      const tuples = [];
      for await (const tuple of checkpointer.list({ configurable: { thread_id: from } })) tuples.push(tuple);
      // Oldest first, so each checkpoint's parent is in place before it.
      tuples.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : a.checkpoint.id > b.checkpoint.id ? 1 : 0));
      for (const tuple of tuples) {
        const ns = String(tuple.config.configurable?.checkpoint_ns ?? "");
        const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
        const saved = await checkpointer.put({ configurable: { thread_id: to, checkpoint_ns: ns, ...(parentId ? { checkpoint_id: parentId } : {}) } }, tuple.checkpoint, tuple.metadata ?? NO_METADATA, tuple.checkpoint.channel_versions);
        await putPendingWrites(checkpointer, saved, tuple.pendingWrites ?? []);
      }
    },

    deleteCheckpoints: (threadId) => checkpointer.deleteThread(threadId),

    async pruneToLatest(threadId) {
      if (hasCopyAndPrune(checkpointer)) return checkpointer.pruneThread(threadId, 1);
      const heads = new Map<string, NonNullable<Awaited<ReturnType<BaseCheckpointSaver["getTuple"]>>>>();
      for await (const tuple of checkpointer.list({ configurable: { thread_id: threadId } })) {
        const ns = String(tuple.config.configurable?.checkpoint_ns ?? "");
        const head = heads.get(ns);
        if (!head || tuple.checkpoint.id > head.checkpoint.id) heads.set(ns, tuple);
      }
      await checkpointer.deleteThread(threadId);
      for (const [ns, head] of heads) {
        // The kept checkpoint keeps its id and metadata; its parent is gone, as LangGraph's pruning leaves it.
        const saved = await checkpointer.put({ configurable: { thread_id: threadId, checkpoint_ns: ns } }, head.checkpoint, head.metadata ?? NO_METADATA, head.checkpoint.channel_versions);
        await putPendingWrites(checkpointer, saved, head.pendingWrites ?? []);
      }
    },
  };
}

async function putPendingWrites(checkpointer: BaseCheckpointSaver, config: RunnableConfig, writes: readonly [string, string, unknown][]): Promise<void> {
  const byTask = new Map<string, [string, unknown][]>();
  for (const [taskId, channel, value] of writes) byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
  for (const [taskId, taskWrites] of byTask) await checkpointer.putWrites(config, taskWrites, taskId);
}

/**
 * The agent loop's state graph (kernel/loop/runtime.ts builds the same channels and
 * nodes): one channel per composition channel with its reducer, the loop's bookkeeping
 * channel, and the two nodes routing themselves (`ends`), compiled on the checkpointer.
 */
function stateGraph(composition: Composition, checkpointer: BaseCheckpointSaver) {
  // Built from the composition at run time, so LangGraph's static state typing cannot follow it.
  const spec: Record<string, any> = {};
  for (const [name, channel] of composition.channels) {
    if (PSEUDO_CHANNELS.has(name)) continue;
    spec[name] = Annotation<unknown>({ reducer: (a: unknown, b: unknown) => reduceChannel(channel.reducer, a, b), default: () => initialValue(channel.reducer) });
  }
  spec[LOOP_CHANNEL] = Annotation<unknown>({ reducer: (_a: unknown, b: unknown) => b, default: () => null });
  const never = async () => {
    throw new Error("the thread-state graph only reads and writes checkpoints");
  };
  return new StateGraph(Annotation.Root(spec))
    .addNode("agent", never as never, { ends: ["agent", "tools", END] } as never)
    .addNode("tools", never as never, { ends: ["agent", END] } as never)
    .addEdge(START, "agent" as never)
    // The loop's routes (the runtime takes them with Commands), so that `next` after an update
    // says what LangGraph's agent graph says: after `agent`, `tools` when the last AI message
    // calls tools (else the end); after `tools`, `agent`.
    .addConditionalEdges("agent" as never, ((state: Record<string, unknown>) => (callsTools(state.messages) ? "tools" : END)) as never, ["tools", END] as never)
    .addEdge("tools" as never, "agent" as never)
    .compile({ checkpointer });
}

/** Does the last message of `messages` (LangChain messages or their dicts) call tools? */
function callsTools(messages: unknown): boolean {
  if (!Array.isArray(messages) || messages.length === 0) return false;
  const last = messages[messages.length - 1] as { tool_calls?: unknown; kwargs?: { tool_calls?: unknown } } | null;
  const calls = last?.tool_calls ?? last?.kwargs?.tool_calls;
  return Array.isArray(calls) && calls.length > 0;
}

function checkpointOf(threadId: string, config: RunnableConfig | undefined): CheckpointWire | null {
  const c = config?.configurable;
  if (!c || typeof c.checkpoint_id !== "string") return null;
  return { thread_id: threadId, checkpoint_ns: typeof c.checkpoint_ns === "string" ? c.checkpoint_ns : "", checkpoint_id: c.checkpoint_id, checkpoint_map: (c.checkpoint_map as Record<string, unknown> | undefined) ?? null };
}

/** LangGraph's `stateSnapshotToThreadState`; an empty thread's checkpoint is addressed by thread with a null id. */
function snapshotToWire(threadId: string, snapshot: StateSnapshot): ThreadStateWire {
  const metadata = { ...((snapshot.metadata ?? {}) as Record<string, unknown>) };
  if (metadata.checkpoint_ns === "") delete metadata.checkpoint_ns;
  return {
    values: publicValues(snapshot.values as Record<string, unknown>),
    next: pendingNodes(snapshot),
    checkpoint: checkpointOf(threadId, snapshot.config) ?? { thread_id: threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
    metadata: toWireValue<Record<string, unknown>>(metadata),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointOf(threadId, snapshot.parentConfig),
    tasks: snapshot.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      error: task.error != null ? String((task.error as { message?: unknown }).message ?? task.error) : null,
      interrupts: toWireValue(task.interrupts ?? []),
      path: task.path ?? [],
      checkpoint: checkpointOf(threadId, (task.state as RunnableConfig | undefined) ?? undefined),
      state: task.state != null && "values" in task.state ? snapshotToWire(threadId, task.state as StateSnapshot) : null,
      result: task.result !== undefined ? taskResult(task.result) : null,
    })),
  };
}

/**
 * A task's writes (what the node returned), as LangGraph shows them, without the loop's own
 * bookkeeping channel (keys starting `__`, hidden from values too). A channel the loop sets
 * whole stays LangGraph's `{ __overwrite__: value }`.
 */
function taskResult(result: unknown): unknown {
  if (result !== null && typeof result === "object" && !Array.isArray(result)) return publicValues(result as Record<string, unknown>);
  return toWireValue(result);
}
