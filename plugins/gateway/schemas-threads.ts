import Type, { type Static } from "typebox";
import { Nullable, ThreadTtl } from "./schemas.js";

/**
 * Request schemas of the thread routes (docs/http.md, "Threads API"). As in
 * schemas.ts, objects stay open (the SDK sends fields Keel does not read: `ttl`,
 * `extract`, `select` on state reads), and the fields Keel reads are checked strictly:
 * a mismatch is a 400 naming the JSON pointer.
 */

const Id = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" });
const OpenObject = Type.Record(Type.String(), Type.Unknown());
/** Not nullable: AJV's type coercion would turn a `0` into the null branch and accept it. */
const Limit = Type.Integer({ minimum: 1, maximum: 1000 });
const Offset = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
const ThreadStatusName = Type.Enum(["idle", "busy", "interrupted", "error"]);
/** A checkpoint id as LangGraph's savers write them (a uuid6), or any id-like string a saver may use. */
const CheckpointId = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" });
/** State values: one object of channel → update (or, as LangGraph accepts, a list of such objects). */
const StateValues = Type.Union([OpenObject, Type.Array(OpenObject, { maxItems: 64 })]);

export const CheckpointAddress = Type.Object({
  checkpoint_id: Type.Optional(Nullable(CheckpointId)),
  checkpoint_ns: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  checkpoint_map: Type.Optional(Nullable(OpenObject)),
});
export type CheckpointAddress = Static<typeof CheckpointAddress>;

const SuperstepUpdate = Type.Object({
  values: Type.Optional(Nullable(StateValues)),
  command: Type.Optional(Type.Unknown()),
  as_node: Type.String({ minLength: 1, maxLength: 128 }),
});

export const ThreadCreateBody = Nullable(
  Type.Object({
    thread_id: Type.Optional(Nullable(Id)),
    metadata: Type.Optional(Nullable(OpenObject)),
    if_exists: Type.Optional(Nullable(Type.Enum(["raise", "do_nothing"]))),
    ttl: Type.Optional(Nullable(ThreadTtl)),
    supersteps: Type.Optional(Nullable(Type.Array(Type.Object({ updates: Type.Array(SuperstepUpdate, { minItems: 1, maxItems: 64 }) }), { maxItems: 256 }))),
  }),
);
export type ThreadCreateBody = Static<typeof ThreadCreateBody>;

/** `PATCH /threads/:tid`: LangGraph requires `metadata` (merged into the thread's). */
export const ThreadPatchBody = Type.Object({ metadata: OpenObject });
export type ThreadPatchBody = Static<typeof ThreadPatchBody>;

const ThreadFilterFields = {
  metadata: Type.Optional(Nullable(OpenObject)),
  values: Type.Optional(Nullable(OpenObject)),
  status: Type.Optional(Nullable(ThreadStatusName)),
};

export const THREAD_FIELDS = ["thread_id", "created_at", "updated_at", "state_updated_at", "metadata", "status", "values", "interrupts"] as const;

export const ThreadSearchBody = Nullable(
  Type.Object({
    ...ThreadFilterFields,
    ids: Type.Optional(Nullable(Type.Array(Id, { maxItems: 1000 }))),
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
    sort_by: Type.Optional(Nullable(Type.Enum(["thread_id", "status", "created_at", "updated_at"]))),
    sort_order: Type.Optional(Nullable(Type.Enum(["asc", "desc"]))),
    select: Type.Optional(Nullable(Type.Array(Type.Enum([...THREAD_FIELDS]), { maxItems: 16 }))),
  }),
);
export type ThreadSearchBody = Static<typeof ThreadSearchBody>;

export const ThreadCountBody = Nullable(Type.Object(ThreadFilterFields));
export type ThreadCountBody = Static<typeof ThreadCountBody>;

export const ThreadPruneBody = Type.Object({
  thread_ids: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  strategy: Type.Optional(Nullable(Type.Enum(["delete", "keep_latest"]))),
});
export type ThreadPruneBody = Static<typeof ThreadPruneBody>;

const Flag = Type.Union([Type.Boolean(), Type.Enum(["0", "1", "true", "false"])]);

export const StateQuery = Type.Object({ subgraphs: Type.Optional(Flag) });
export type StateQuery = Static<typeof StateQuery>;

export const StateAtCheckpointParams = Type.Object({ tid: Id, cid: CheckpointId });

export const StateAtCheckpointBody = Type.Object({
  checkpoint: Type.Optional(Nullable(CheckpointAddress)),
  subgraphs: Type.Optional(Nullable(Flag)),
});
export type StateAtCheckpointBody = Static<typeof StateAtCheckpointBody>;

export const StateUpdateBody = Type.Object({
  values: Type.Optional(Nullable(StateValues)),
  as_node: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  checkpoint_id: Type.Optional(Nullable(CheckpointId)),
  checkpoint: Type.Optional(Nullable(CheckpointAddress)),
  command: Type.Optional(Type.Unknown()),
});
export type StateUpdateBody = Static<typeof StateUpdateBody>;

export const StatePatchBody = Type.Object({ metadata: OpenObject });
export type StatePatchBody = Static<typeof StatePatchBody>;

/** `before`: a checkpoint id, or the SDK's Config `{ configurable: { checkpoint_id } }`. */
const Before = Type.Union([CheckpointId, Type.Object({ configurable: Type.Object({ checkpoint_id: CheckpointId }) })]);

export const HistoryBody = Nullable(
  Type.Object({
    limit: Type.Optional(Limit),
    before: Type.Optional(Nullable(Before)),
    metadata: Type.Optional(Nullable(OpenObject)),
    checkpoint: Type.Optional(Nullable(CheckpointAddress)),
  }),
);
export type HistoryBody = Static<typeof HistoryBody>;

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Limit),
  before: Type.Optional(CheckpointId),
});
export type HistoryQuery = Static<typeof HistoryQuery>;
