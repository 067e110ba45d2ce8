/**
 * Lost events, told by id continuity. Entry ids are `<ms>-<n>`, `n` the event's number in
 * the run (append-script.ts), so the event after cursor `c` must be number `n(c) + 1`.
 * The shared follower (kernel/runs/follow-log.ts) decides on `prev`: an event whose
 * `prev` is after the cursor is a gap, with `prev` as the gap's id (the newest event
 * missed). So each entry is reported to it with the `prev` continuity implies:
 *
 * - the next number: `prev` = the cursor (nothing lost, also when the stream was flushed
 *   and the publisher went on numbering);
 * - otherwise events were lost (trimmed by MAXLEN, taken by a flush or a restart, or never
 *   written while Redis was down): `prev` = the stored previous entry's id when that entry
 *   is the newest missed event (plain trimming: the exact id), else `<ms>-<n - 1>` of the
 *   delivered entry. That id is after the cursor and before the entry, and a subscriber
 *   that reconnects with it resumes at the entry with no second gap.
 */
import { compareEventIds } from "../../kernel/runs/stream-event-id.js";
import type { LoggedEvent } from "../../kernel/runs/stream-gap.js";

function parts(id: string): [ms: string, n: bigint] {
  const dash = id.indexOf("-");
  return [id.slice(0, dash), BigInt(id.slice(dash + 1))];
}

/** The seq part as a number when it is exact in a double (every real run), else null. */
function smallSeq(id: string): number | null {
  const seq = id.slice(id.indexOf("-") + 1);
  return seq.length < 16 ? Number(seq) : null;
}

/** The event number of an id written by this bridge (`<ms>-<n>`). */
export function eventNumber(id: string): number {
  return Number(parts(id)[1]);
}

/** The `prev` to report for `entry` delivered right after `cursor` (null: joining from the start accepts anything). */
export function continuityPrev(cursor: string | null, entry: LoggedEvent): string {
  if (cursor === null) return entry.prev;
  // The common case, without BigInt: the next number.
  const next = smallSeq(entry.event.id);
  const at = smallSeq(cursor);
  if (next !== null && at !== null && next === at + 1) return cursor;
  const [ms, n] = parts(entry.event.id);
  if (n === parts(cursor)[1] + 1n) return cursor;
  if (compareEventIds(entry.prev, cursor) > 0 && parts(entry.prev)[1] === n - 1n) return entry.prev;
  return `${ms}-${n - 1n}`;
}

/** Entries delivered in order after `cursor`, each with the `prev` continuity implies. */
export function withContinuity(entries: readonly LoggedEvent[], cursor: string | null): LoggedEvent[] {
  let previous = cursor;
  return entries.map((entry) => {
    const prev = continuityPrev(previous, entry);
    previous = entry.event.id;
    return prev === entry.prev ? entry : { event: entry.event, prev };
  });
}
