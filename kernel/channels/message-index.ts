import { BaseMessage, BaseMessageChunk, RemoveMessage, ToolMessage } from "@langchain/core/messages";

/**
 * What the loop looks up in a message history on every step, kept beside the history so a
 * step costs what it adds, not what the thread holds:
 * - `positions`: every message id and its position (null when a message has no id, two
 *   share one, or one is a chunk or a message-like object: the index then cannot prove
 *   that appending leaves the history as the messages reducer would, and the full reducer runs);
 * - `toolResults`: the `tool_call_id` of every tool result (calls already answered).
 */
export interface MessageIndex {
  readonly positions: ReadonlyMap<string, number> | null;
  readonly toolResults: ReadonlySet<string>;
}

/** A left fold over a history, cached per history lineage (see `foldMessages`). */
export interface MessageFold<T> {
  init(): T;
  /** The fold's next state after `message` at `position`; must not change `state` in place. */
  step(state: T, message: BaseMessage, position: number): T;
}

interface OwnedIndex {
  positions: Map<string, number> | null;
  toolResults: Set<string>;
  /** Fold states over the first `count` messages. */
  folds: Map<MessageFold<unknown>, { count: number; state: unknown }>;
}

/**
 * One index per history array, by identity. Appending moves the index to the new array
 * (adding what was appended), so a history grown one step at a time is scanned once; a
 * history with no index (restored from a checkpoint, or rebuilt by a replacement) is
 * scanned when first asked for. Arrays are never edited in place, so an index always
 * describes exactly the array it belongs to.
 */
const indexes = new WeakMap<readonly BaseMessage[], OwnedIndex>();

/** One remembered append: `items` appended to a history gave `next` (null once forgotten). */
interface Hop {
  readonly items: readonly BaseMessage[];
  next: BaseMessage[] | null;
}

/**
 * `history → (what was appended, the result)`: a second reduction of the same append (the
 * node's working copy appended first, then LangGraph reduces the node's update against the
 * history it started from) finds the array already built instead of rebuilding it.
 */
const forwards = new WeakMap<readonly BaseMessage[], Hop>();

/**
 * How many appends (process-wide) remember their result. Both reductions of an append happen
 * within one step, so a few suffice; a forgotten hop is rebuilt (a copy, never a wrong
 * answer). Without the bound, a history kept alive (a task's input, the run's own input)
 * would keep every later history of its thread alive through the chain of hops: quadratic
 * memory in the number of turns. (Not a `WeakRef`: a run that never leaves its job, which a
 * fast model allows, would keep every target alive until it ends.)
 */
export const REMEMBERED_APPENDS = 16;
const remembered: Hop[] = [];

function remember(history: readonly BaseMessage[], items: readonly BaseMessage[], next: BaseMessage[]): void {
  const hop: Hop = { items, next };
  forwards.set(history, hop);
  remembered.push(hop);
  if (remembered.length > REMEMBERED_APPENDS) remembered.shift()!.next = null;
}

/** A message the messages reducer keeps as it is (not a chunk nor a message-like object it would convert). */
function plainMessage(item: unknown): item is BaseMessage {
  return item instanceof BaseMessage && !BaseMessageChunk.isInstance(item);
}

/** The index a full scan gives: the reference the incremental one must always equal. */
export function scanMessages(messages: readonly BaseMessage[]): MessageIndex {
  let positions: Map<string, number> | null = new Map<string, number>();
  const toolResults = new Set<string>();
  messages.forEach((message, i) => {
    if (positions && (!plainMessage(message) || typeof message.id !== "string" || message.id === "" || positions.has(message.id))) positions = null;
    else positions?.set(message.id!, i);
    if (ToolMessage.isInstance(message)) toolResults.add(message.tool_call_id);
  });
  return { positions, toolResults };
}

function owned(messages: readonly BaseMessage[]): OwnedIndex {
  let index = indexes.get(messages);
  if (!index) {
    const scanned = scanMessages(messages);
    index = { positions: scanned.positions as Map<string, number> | null, toolResults: scanned.toolResults as Set<string>, folds: new Map() };
    indexes.set(messages, index);
  }
  return index;
}

/** The index of a history (read-only; scanned once when the history has none yet). */
export function messageIndex(messages: readonly BaseMessage[]): MessageIndex {
  return owned(messages);
}

/**
 * Whether `items` can be appended as they are: real (non-chunk) messages, no removal, each
 * with an id that neither the history (`taken`) nor an earlier item has. Exactly then the
 * messages reducer's result is the history followed by the items, unchanged.
 */
export function isFreshAppend(items: readonly unknown[], taken: (id: string) => boolean): items is BaseMessage[] {
  // A step's usual update is one message: no set of the update's own ids needed.
  const seen = items.length > 1 ? new Set<string>() : undefined;
  for (const item of items) {
    if (!plainMessage(item) || RemoveMessage.isInstance(item)) return false;
    const id = item.id;
    if (typeof id !== "string" || id === "" || seen?.has(id) || taken(id)) return false;
    seen?.add(id);
  }
  return true;
}

/** The array an earlier reduction built from `current` by appending exactly `items`, if any. */
function alreadyAppended(current: readonly BaseMessage[], items: readonly unknown[]): BaseMessage[] | null {
  let at: readonly BaseMessage[] = current;
  let used = 0;
  for (let hop = forwards.get(at); hop && used < items.length; hop = forwards.get(at)) {
    if (used + hop.items.length > items.length) return null;
    for (let k = 0; k < hop.items.length; k++) if (hop.items[k] !== items[used + k]) return null;
    if (!hop.next) return null;
    used += hop.items.length;
    at = hop.next;
  }
  return used === items.length && used > 0 ? (at as BaseMessage[]) : null;
}

/**
 * The messages reducer's append fast path: when `update` only adds fresh messages, the new
 * history is `current` followed by them and `current`'s index moves to it (O(what was
 * added) apart from copying the array). Null when the update needs the full reducer
 * (replacement, removal, missing or repeated ids, message-like objects, chunks).
 */
export function appendFresh(current: readonly BaseMessage[], update: unknown): BaseMessage[] | null {
  if (!Array.isArray(current)) return null;
  const items = Array.isArray(update) ? (update as unknown[]) : [update];
  if (items.length === 0) return current as BaseMessage[];
  const built = alreadyAppended(current, items);
  if (built) return built;
  const index = owned(current);
  const positions = index.positions;
  if (positions === null || !isFreshAppend(items, (id) => positions.has(id))) return null;
  const next = current.concat(items);
  indexes.delete(current);
  items.forEach((message, k) => {
    positions.set(message.id!, current.length + k);
    if (ToolMessage.isInstance(message)) index.toolResults.add(message.tool_call_id);
  });
  indexes.set(next, index);
  remember(current, items, next);
  return next;
}

/**
 * `fold` over the whole history, resuming from the state cached for its lineage: a history
 * grown by appends costs the new messages only. Exact as long as messages are not edited
 * in place (run-time enforcement freezes them).
 */
export function foldMessages<T>(messages: readonly BaseMessage[], fold: MessageFold<T>): T {
  const index = owned(messages);
  let cached = index.folds.get(fold as MessageFold<unknown>);
  if (!cached || cached.count > messages.length) cached = { count: 0, state: fold.init() };
  let state = cached.state as T;
  for (let i = cached.count; i < messages.length; i++) state = fold.step(state, messages[i]!, i);
  index.folds.set(fold as MessageFold<unknown>, { count: messages.length, state });
  return state;
}

/** The same fold by a full scan (the reference `foldMessages` must equal). */
export function foldMessagesFully<T>(messages: readonly BaseMessage[], fold: MessageFold<T>): T {
  let state = fold.init();
  messages.forEach((message, i) => (state = fold.step(state, message, i)));
  return state;
}
