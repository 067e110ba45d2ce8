/**
 * What a StreamBridge implementation builds on (exported from `keel/host`): the shared
 * follower, event ids, the gap event, control-message handlers and publish checks. A
 * third-party bridge says how to store and read its log; the semantics come from here,
 * and the conformance suite proves them.
 */
export { followLog, linkedSignal, type LogRange, type LogSource } from "./follow-log.js";
export { assertEventId, compareEventIds, EventIdSequence, isEventId, readLastEventId, ZERO_EVENT_ID } from "./stream-event-id.js";
export { followsCursor, gapEvent, type LoggedEvent, type RetainedRange } from "./stream-gap.js";
export { ControlHandlers, isControlMessage } from "./control-handlers.js";
export { assertPublishable, readRetentionOptions, unrefTimers, type RetentionOptions, type RetentionTimers } from "./bridge-options.js";
export type { ControlMessage, PublishOptions, StreamBridge, StreamEvent, SubscribeOptions } from "./types.js";
