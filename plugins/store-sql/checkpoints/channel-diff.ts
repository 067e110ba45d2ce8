/**
 * How one channel's value changed from the parent checkpoint to the child, found by
 * looking at the values themselves, never by assuming a reducer: LangGraph's reducers
 * return new values and leave the old ones alone, so an element the child's list shares
 * with the parent's is the same object (`===`). Lists are therefore compared by element
 * identity, which costs one pointer comparison per element and no serialization:
 *
 * - the child's list is the parent's with items appended (the `messages` channel's usual
 *   step), or with some items dropped from the front and items appended (a window such
 *   as `keepNewest`), or with its tail replaced (an item updated near the end): a
 *   `splice` that keeps `parent.slice(from, keep)` and appends the new items;
 * - anything else (an `Overwrite`, a summary replacing the history, a value that is not
 *   a list, a list read back from the database in another process): the whole value.
 *
 * Identical elements at the same positions are identical values, so a splice never
 * loses a change. The one assumption, LangGraph's own: a checkpointed value is not
 * mutated in place afterwards (Keel's kernel freezes checkpointed items).
 */

export type ChannelChange =
  | { op: "same" }
  | { op: "set"; value: unknown }
  | { op: "unset" }
  | { op: "splice"; from: number; keep: number; items: unknown[] };

const has = (values: Record<string, unknown>, channel: string): boolean => Object.prototype.hasOwnProperty.call(values, channel) && values[channel] !== undefined;

/** The change of every channel of `parent` or `child` (a channel whose value is `undefined` counts as absent, as serialization drops it). */
export function diffChannels(parent: Record<string, unknown>, child: Record<string, unknown>): Map<string, ChannelChange> {
  const changes = new Map<string, ChannelChange>();
  for (const channel of Object.keys(child)) {
    if (!has(child, channel)) continue;
    changes.set(channel, has(parent, channel) ? diffValue(parent[channel], child[channel]) : { op: "set", value: child[channel] });
  }
  for (const channel of Object.keys(parent)) {
    if (has(parent, channel) && !has(child, channel)) changes.set(channel, { op: "unset" });
  }
  return changes;
}

export function diffValue(before: unknown, after: unknown): ChannelChange {
  if (before === after) return { op: "same" };
  if (Array.isArray(before) && Array.isArray(after)) return diffList(before, after);
  return { op: "set", value: after };
}

function diffList(before: readonly unknown[], after: readonly unknown[]): ChannelChange {
  // Two empty lists are the same value (LangGraph checkpoints a new `[]` of `__pregel_tasks` every step).
  if (before.length === 0 && after.length === 0) return { op: "same" };
  if (before.length === 0 || after.length === 0) return { op: "set", value: after };
  let from = 0;
  if (before[0] !== after[0]) {
    from = before.indexOf(after[0], 1);
    if (from < 0) return { op: "set", value: after };
  }
  let keep = from;
  // A hole and an explicit undefined serialize alike (`null`), so identity is all a kept element needs.
  while (keep < before.length && keep - from < after.length && before[keep] === after[keep - from]) keep += 1;
  const items = after.slice(keep - from);
  if (from === 0 && keep === before.length && items.length === 0) return { op: "same" };
  // Nothing kept worth the indirection: the whole value is as small.
  if (items.length >= after.length) return { op: "set", value: after };
  return { op: "splice", from, keep, items };
}

/** The child's list from the parent's and a splice. */
export function applySplice(before: unknown, from: number, keep: number, items: readonly unknown[]): unknown[] {
  if (!Array.isArray(before) || keep > before.length || from > keep) throw new RangeError("splice base is not the list it was computed against");
  return before.slice(from, keep).concat(items);
}
