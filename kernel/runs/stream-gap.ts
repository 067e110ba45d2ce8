/**
 * How a subscriber notices that it missed events (shared by every StreamBridge).
 *
 * Ids are not contiguous (`<ms>-<seq>`), so "the cursor is older than the earliest
 * retained event" alone cannot tell a real loss from a client that saw exactly the
 * last trimmed event. Each bridge therefore knows, for every retained event, the id of
 * the event published just before it in the run (`prev`; `0-0` for the first): the
 * memory bridge from its neighbour or the last dropped id, Redis from a field stored
 * with the entry. Delivering event `e` to a subscriber whose cursor is `c` leaves a hole
 * exactly when `prev(e) > c`: `prev(e)` was published after `c`, and it was not
 * delivered because `e` is the first retained event after `c`.
 */
import { compareEventIds } from "./stream-event-id.js";
import type { StreamEvent } from "./types.js";

/** A retained event with the id of the event published just before it. */
export interface LoggedEvent {
  event: StreamEvent;
  prev: string;
}

/** The retained range of a run's log; both null when nothing is retained. */
export interface RetainedRange {
  earliest: string | null;
  latest: string | null;
}

/**
 * Whether delivering an event whose predecessor is `prev` to a subscriber at `cursor`
 * leaves nothing out. A null cursor (no `Last-Event-ID`: "join from the start") accepts
 * whatever is retained first.
 */
export function followsCursor(prev: string, cursor: string | null): boolean {
  return cursor === null || compareEventIds(prev, cursor) <= 0;
}

/**
 * The single `gap` event a subscription ends with when its cursor fell out of
 * retention (stream-event@1, data `GapEventData`).
 *
 * Its `id` is `lostThrough`, the newest event the subscriber missed (the `prev` of the
 * first retained event after the cursor): the gap takes the place of the lost events
 * in the order, ids stay increasing for the client, and an SSE client that reconnects
 * with it as `Last-Event-ID` resumes at the earliest retained event without a second
 * gap. When nothing of the run is retained any more, `lostThrough` is the requested id.
 */
export function gapEvent(runId: string, requested: string, range: RetainedRange, lostThrough: string): StreamEvent {
  return {
    id: lostThrough,
    runId,
    event: "gap",
    data: { code: "stream_replay_gap", requested, earliest: range.earliest, latest: range.latest, recovery: "reload_durable_state" },
  };
}
