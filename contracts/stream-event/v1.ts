import Type, { type Static, type TSchema } from "typebox";
import { defineContract } from "../define.js";
import { Usage } from "../shared.js";

export const STREAM_EVENT_NAMES = ["metadata", "values", "updates", "messages", "custom", "guard", "task", "error", "gap", "end"] as const;
export type StreamEventName = (typeof STREAM_EVENT_NAMES)[number];

/** `<ms>-<seq>`: the SSE `id`, also what `Last-Event-ID` carries back. */
export const StreamEventId = Type.String({ pattern: "^\\d+-\\d+$" });

export const GUARD_ACTIONS = ["warn", "strip", "block", "refuse", "retry", "stop"] as const;

export const GuardEventData = Type.Object(
  {
    plugin: Type.String({ minLength: 1 }),
    action: Type.Enum(GUARD_ACTIONS),
    reason: Type.String({ minLength: 1 }),
    detail: Type.Optional(Type.String()),
    agent: Type.String({ minLength: 1 }),
    /** `retry` only: the delay scheduled before the next attempt, in ms. */
    retryInMs: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type GuardEventData = Static<typeof GuardEventData>;

export const TaskEventData = Type.Object(
  {
    phase: Type.Enum(["started", "running", "terminal"]),
    taskId: Type.String({ minLength: 1 }),
    agent: Type.String({ minLength: 1 }),
    subagentType: Type.String({ minLength: 1 }),
    status: Type.Optional(Type.Enum(["in_progress", "succeeded", "partial", "failed", "cancelled", "timed_out"])),
    usage: Type.Optional(Usage),
  },
  { additionalProperties: false },
);
export type TaskEventData = Static<typeof TaskEventData>;

/** `earliest`/`latest` are null when nothing of the run is retained any more. */
export const GapEventData = Type.Object(
  {
    code: Type.Literal("stream_replay_gap"),
    requested: StreamEventId,
    earliest: Type.Union([StreamEventId, Type.Null()]),
    latest: Type.Union([StreamEventId, Type.Null()]),
    recovery: Type.Literal("reload_durable_state"),
  },
  { additionalProperties: false },
);
export type GapEventData = Static<typeof GapEventData>;

const OpenObject = Type.Record(Type.String(), Type.Unknown());

/** The run's lease epoch an event was published under (absent when the publisher gave none). */
export const StreamEventEpoch = Type.Optional(Type.Integer({ minimum: 0 }));

function eventOf<E extends StreamEventName, D extends TSchema>(event: E, data: D) {
  return Type.Object({ id: StreamEventId, runId: Type.String({ minLength: 1 }), event: Type.Literal(event), data, epoch: StreamEventEpoch }, { additionalProperties: false });
}

/**
 * One branch per event name. `guard`, `task` and `gap` have a fixed data shape;
 * the LangGraph-compatible events carry what LangGraph sends (`messages` is a
 * `[message, metadata]` tuple in messages-tuple mode, `end` has null data).
 */
export const StreamEventV1 = Type.Union([
  eventOf("metadata", OpenObject),
  eventOf("values", OpenObject),
  eventOf("updates", OpenObject),
  eventOf("messages", Type.Unknown()),
  eventOf("custom", Type.Unknown()),
  eventOf("guard", GuardEventData),
  eventOf("task", TaskEventData),
  eventOf("error", OpenObject),
  eventOf("gap", GapEventData),
  eventOf("end", Type.Unknown()),
]);
export type StreamEventV1 = Static<typeof StreamEventV1>;

export default defineContract("stream-event", 1, "Keel stream event: one event of a run's stream", StreamEventV1);
