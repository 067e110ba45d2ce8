import Type, { type Static } from "typebox";
import { Nullable, STREAM_MODES } from "./schemas.js";

/**
 * Request schemas of the run routes (docs/http.md, "Runs API"): every field of
 * LangGraph's run-create payload is named here. Objects stay open (unknown fields are
 * ignored); each known field is checked, and what Keel does not support is refused by
 * `refuseUnsupportedFields` (run-fields.ts) with the field's pointer — never ignored.
 */

const Id = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" });
const OpenObject = Type.Record(Type.String(), Type.Unknown());
const StreamModeName = Type.Enum(STREAM_MODES);

/** LangGraph's `checkpoint` object: where in the thread's history the run starts (a fork). */
const CheckpointRef = Type.Object({
  checkpoint_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  checkpoint_ns: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  checkpoint_map: Type.Optional(Nullable(OpenObject)),
  thread_id: Type.Optional(Nullable(Type.String({ maxLength: 128 }))),
});

/**
 * `true`, `false` or `null` as one multi-type schema: with AJV's type coercion an
 * `anyOf [boolean, null]` would turn `null` into `false` (and an array branch `null` into `[""]`).
 */
const NullableBoolean = Type.Unsafe<boolean | null>({ type: ["boolean", "null"] });

/** LangGraph's `interrupt_before` / `interrupt_after` (`"*"` or node names) and `feedback_keys`: checked in run-fields.ts. */
const Refusable = Type.Unknown();

export const RunCreateBody = Type.Object({
  assistant_id: Type.String({ minLength: 1, maxLength: 128 }),
  input: Type.Optional(Type.Unknown()),
  command: Type.Optional(Type.Unknown()),
  config: Type.Optional(Nullable(OpenObject)),
  context: Type.Optional(Nullable(OpenObject)),
  metadata: Type.Optional(Nullable(OpenObject)),
  stream_mode: Type.Optional(Nullable(Type.Union([StreamModeName, Type.Array(StreamModeName, { maxItems: 16 })]))),
  stream_subgraphs: Type.Optional(NullableBoolean),
  stream_resumable: Type.Optional(NullableBoolean),
  feedback_keys: Type.Optional(Refusable),
  interrupt_before: Type.Optional(Refusable),
  interrupt_after: Type.Optional(Refusable),
  checkpoint: Type.Optional(Nullable(CheckpointRef)),
  checkpoint_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  webhook: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
  strict_resume: Type.Optional(NullableBoolean),
  multitask_strategy: Type.Optional(Nullable(Type.Enum(["reject", "interrupt", "rollback", "enqueue"]))),
  on_completion: Type.Optional(Nullable(Type.Enum(["delete", "keep"]))),
  on_disconnect: Type.Optional(Nullable(Type.Enum(["cancel", "continue"]))),
  /** Seconds from now before the run may start (it is `pending` until then); at most 31 days. */
  after_seconds: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2_678_400 }))),
  if_not_exists: Type.Optional(Nullable(Type.Enum(["reject", "create"]))),
  checkpoint_during: Type.Optional(NullableBoolean),
  durability: Type.Optional(Nullable(Type.Enum(["sync", "async", "exit"]))),
  langsmith_tracer: Type.Optional(Type.Unknown()),
});
export type RunCreateBody = Static<typeof RunCreateBody>;

/** `POST /runs/batch`: 1 to 100 threadless run payloads. */
export const RunBatchBody = Type.Array(RunCreateBody, { minItems: 1, maxItems: 100 });
export type RunBatchBody = Static<typeof RunBatchBody>;

/** `POST /runs/cancel` (the SDK's `cancelMany`). */
export const RunCancelManyBody = Type.Object({
  thread_id: Type.Optional(Nullable(Id)),
  run_ids: Type.Optional(Nullable(Type.Array(Id, { minItems: 1, maxItems: 1000 }))),
  status: Type.Optional(Nullable(Type.Enum(["pending", "running", "all"]))),
});
export type RunCancelManyBody = Static<typeof RunCancelManyBody>;

export const RunCancelManyQuery = Type.Object({
  action: Type.Optional(Type.Enum(["interrupt", "rollback"])),
});
export type RunCancelManyQuery = Static<typeof RunCancelManyQuery>;

/** A run addressed by its id alone (`GET /runs/:rid/stream`, what the SDK's `joinStream(null, runId)` calls). */
export const RunOnlyParams = Type.Object({ rid: Id });

