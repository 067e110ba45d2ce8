import Type, { type Static } from "typebox";
import { Nullable, STREAM_MODES } from "./schemas.js";

/**
 * Request schemas of the cron routes (docs/http.md, "Crons API"). Open objects,
 * as every route's: unknown fields are ignored. The fields `@langchain/langgraph-sdk`'s
 * crons client sends that Keel does not support are declared here and refused by the route
 * when set (`durability`, …), never silently ignored.
 */

const OpenObject = Type.Record(Type.String(), Type.Unknown());
const StreamModeName = Type.Enum(STREAM_MODES);
const StreamModes = Type.Union([StreamModeName, Type.Array(StreamModeName, { maxItems: 16 })]);
const Limit = Type.Integer({ minimum: 1, maximum: 1000 });
const Offset = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
const IdFilter = Type.String({ minLength: 1, maxLength: 128 });

export const CronParams = Type.Object({ cron_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** Fields of the SDK's cron bodies that Keel refuses when they ask for something (the route checks them). */
export const CRON_UNSUPPORTED_FIELDS = ["checkpoint_during", "durability", "stream_subgraphs"] as const;
const unsupported = Object.fromEntries(CRON_UNSUPPORTED_FIELDS.map((field) => [field, Type.Optional(Type.Unknown())]));

/** What every fire's run is made of (the cron's `payload`). */
const runFields = {
  input: Type.Optional(Type.Unknown()),
  /** Where each fire's run pauses (`"*"` or `agent`, `tools`): checked as a run's (run-fields.ts). */
  interrupt_before: Type.Optional(Type.Unknown()),
  interrupt_after: Type.Optional(Type.Unknown()),
  config: Type.Optional(Nullable(OpenObject)),
  context: Type.Optional(Nullable(OpenObject)),
  metadata: Type.Optional(Nullable(OpenObject)),
  stream_mode: Type.Optional(Nullable(StreamModes)),
  stream_resumable: Type.Optional(Nullable(Type.Boolean())),
  /** Each fire's run is POSTed here once it ended (as a run's `webhook`; null on update: no webhook any more). */
  webhook: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
};

const scheduleFields = {
  timezone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  end_time: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  enabled: Type.Optional(Nullable(Type.Boolean())),
  on_run_completed: Type.Optional(Nullable(Type.Enum(["delete", "keep"]))),
};

export const CronCreateBody = Type.Object({
  schedule: Type.String({ minLength: 1, maxLength: 256 }),
  assistant_id: Type.String({ minLength: 1, maxLength: 128 }),
  multitask_strategy: Type.Optional(Nullable(Type.Enum(["reject", "interrupt", "rollback", "enqueue"]))),
  ...runFields,
  ...scheduleFields,
  ...unsupported,
});
export type CronCreateBody = Static<typeof CronCreateBody>;

export const CronUpdateBody = Nullable(
  Type.Object({
    schedule: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    ...runFields,
    ...scheduleFields,
    ...unsupported,
  }),
);
export type CronUpdateBody = Static<typeof CronUpdateBody>;

export const CRON_SORT_BY = ["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date", "end_time"] as const;
export const CRON_SELECT_FIELDS = ["cron_id", "assistant_id", "thread_id", "end_time", "schedule", "created_at", "updated_at", "user_id", "payload", "next_run_date", "metadata", "now", "timezone", "enabled", "on_run_completed"] as const;

export const CronSearchBody = Nullable(
  Type.Object({
    assistant_id: Type.Optional(Nullable(IdFilter)),
    thread_id: Type.Optional(Nullable(IdFilter)),
    enabled: Type.Optional(Nullable(Type.Boolean())),
    metadata: Type.Optional(Nullable(OpenObject)),
    limit: Type.Optional(Nullable(Limit)),
    offset: Type.Optional(Nullable(Offset)),
    sort_by: Type.Optional(Nullable(Type.Enum(CRON_SORT_BY))),
    sort_order: Type.Optional(Nullable(Type.Enum(["asc", "desc"]))),
    select: Type.Optional(Nullable(Type.Array(Type.Enum(CRON_SELECT_FIELDS), { minItems: 1, maxItems: CRON_SELECT_FIELDS.length }))),
  }),
);
export type CronSearchBody = Static<typeof CronSearchBody>;

export const CronCountBody = Nullable(
  Type.Object({
    assistant_id: Type.Optional(Nullable(IdFilter)),
    thread_id: Type.Optional(Nullable(IdFilter)),
    metadata: Type.Optional(Nullable(OpenObject)),
  }),
);
export type CronCountBody = Static<typeof CronCountBody>;
