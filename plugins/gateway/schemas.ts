import Type, { type Static } from "typebox";
import { HttpError } from "./http-errors.js";

/**
 * Request schemas of the routes (docs/http.md). Objects stay open: unknown fields
 * are ignored, because `@langchain/langgraph-sdk` may send fields Keel does not know. Fields
 * Keel knows are checked strictly, and a mismatch is a 400 naming the JSON pointer (the run
 * routes' full body, every LangGraph field decided, is in schemas-runs.ts).
 */

/** Ids are one URL path segment; the bound keeps them usable as directory and key names. */
const Id = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" });
const OpenObject = Type.Record(Type.String(), Type.Unknown());
type UnionMember = Parameters<typeof Type.Union>[0][number];
/** The scalar types AJV's coercion would turn into `null` (`0`, `""`) in an `anyOf [T, null]`. */
const FALSY_COERCED = new Set(["integer", "number", "string"]);

/**
 * A schema or null (LangGraph's clients send null for "not given"). A number or string is
 * one multi-type schema (`type: ["integer", "null"]`): with the gateway's type coercion an
 * `anyOf [integer, null]` turns a value the first branch refuses into null when it is
 * falsy — `limit: 0` passed as "not given" (the default) instead of a 400, `""` likewise.
 * With a type list AJV coerces only what matches none of the types, so `0` stays `0`.
 */
export function Nullable<T extends UnionMember>(schema: T): ReturnType<typeof Type.Union<[T, ReturnType<typeof Type.Null>]>> {
  const plain = schema as unknown as Record<string, unknown>;
  if (typeof plain.type === "string" && FALSY_COERCED.has(plain.type) && !("enum" in plain) && !("const" in plain)) {
    return Type.Unsafe({ ...plain, type: [plain.type, "null"] }) as never;
  }
  return Type.Union([schema, Type.Null()]);
}

/** LangGraph's stream modes, then Keel's own (`guard`, `task`: sent only when asked for by name). */
export const STREAM_MODES = ["values", "updates", "messages", "messages-tuple", "custom", "checkpoints", "tasks", "debug", "events", "tools", "guard", "task"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];
const StreamModeName = Type.Enum(STREAM_MODES);

export const ThreadParams = Type.Object({ tid: Id });
export const RunParams = Type.Object({ tid: Id, rid: Id });
export const AssistantParams = Type.Object({ aid: Type.String({ minLength: 1, maxLength: 128 }) });

/** A thread's TTL as the SDK sends it: `{ ttl: minutes, strategy: "delete" }` (LangGraph's only strategy here). */
export const ThreadTtl = Type.Object({ ttl: Type.Number({ exclusiveMinimum: 0 }), strategy: Type.Optional(Type.Enum(["delete"])) });

export const ThreadCreateBody = Nullable(
  Type.Object({
    thread_id: Type.Optional(Nullable(Id)),
    metadata: Type.Optional(Nullable(OpenObject)),
    if_exists: Type.Optional(Nullable(Type.Enum(["raise", "do_nothing"]))),
    ttl: Type.Optional(Nullable(ThreadTtl)),
  }),
);
export type ThreadCreateBody = Static<typeof ThreadCreateBody>;

/** Page size and offset of every list: integers (a fraction, a word or an out-of-range value is a 400 naming the field). */
const Limit = Type.Integer({ minimum: 1, maximum: 1000 });
const Offset = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

/** The paging fields `assertFinitePaging` re-checks after validation. */
const PAGING_FIELDS = ["limit", "offset"] as const;

/**
 * AJV's type coercion turns a query string `1e400` or `Infinity` into `Infinity` and then
 * skips the integer and range checks; this closes that hole for `limit` and `offset`
 * (query string and body): anything but a finite integer is a 400 naming the field.
 */
export function assertFinitePaging(where: "query string" | "body", value: unknown): void {
  if (value === null || typeof value !== "object") return;
  for (const field of PAGING_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === "number" && !Number.isSafeInteger(v)) {
      throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid ${where} at \`/${field}\`: must be an integer`, `/${field}`);
    }
  }
}

export const ThreadSearchBody = Nullable(
  Type.Object({
    metadata: Type.Optional(Nullable(OpenObject)),
    status: Type.Optional(Nullable(Type.Enum(["idle", "busy", "interrupted", "error"]))),
    limit: Type.Optional(Nullable(Limit)),
    offset: Type.Optional(Nullable(Offset)),
  }),
);
export type ThreadSearchBody = Static<typeof ThreadSearchBody>;

export const AssistantSearchBody = Nullable(
  Type.Object({
    graph_id: Type.Optional(Nullable(Type.String())),
    name: Type.Optional(Nullable(Type.String())),
    metadata: Type.Optional(Nullable(OpenObject)),
    limit: Type.Optional(Nullable(Limit)),
    offset: Type.Optional(Nullable(Offset)),
  }),
);
export type AssistantSearchBody = Static<typeof AssistantSearchBody>;

/** The core of a run-creation body; the run routes take schemas-runs.ts's `RunCreateBody` (a superset). */
export const RunCreateBody = Type.Object({
  assistant_id: Type.String({ minLength: 1, maxLength: 128 }),
  input: Type.Optional(Type.Unknown()),
  config: Type.Optional(Nullable(OpenObject)),
  context: Type.Optional(Nullable(OpenObject)),
  metadata: Type.Optional(Nullable(OpenObject)),
  stream_mode: Type.Optional(Nullable(Type.Union([StreamModeName, Type.Array(StreamModeName, { maxItems: 16 })]))),
  multitask_strategy: Type.Optional(Nullable(Type.Enum(["reject", "interrupt", "rollback", "enqueue"]))),
  on_disconnect: Type.Optional(Nullable(Type.Enum(["cancel", "continue"]))),
  stream_resumable: Type.Optional(Nullable(Type.Boolean())),
});
export type RunCreateBody = Static<typeof RunCreateBody>;

export const RunListQuery = Type.Object({
  /** `0` is an empty page, as LangGraph answers. */
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  offset: Type.Optional(Offset),
  status: Type.Optional(Type.Enum(["pending", "running", "success", "error", "timeout", "interrupted"])),
});
export type RunListQuery = Static<typeof RunListQuery>;

/** `GET …/report?version=1|2`: the run-report version (default 2, model requests as deltas; 1 expands them). */
export const ReportQuery = Type.Object({ version: Type.Optional(Type.Enum(["1", "2"])) });
export type ReportQuery = Static<typeof ReportQuery>;

/** The SDK sends `wait=1|0`; `true|false` are accepted too. */
const Flag = Type.Union([Type.Boolean(), Type.Enum(["0", "1", "true", "false"])]);
export const CancelQuery = Type.Object({
  wait: Type.Optional(Flag),
  action: Type.Optional(Type.Enum(["interrupt", "rollback"])),
});
export type CancelQuery = Static<typeof CancelQuery>;

export const JoinStreamQuery = Type.Object({
  cancel_on_disconnect: Type.Optional(Flag),
  stream_mode: Type.Optional(Type.Union([StreamModeName, Type.Array(StreamModeName, { maxItems: 16 })])),
  /** What the SDK's `lastEventId` becomes when a proxy drops the header; the header wins. */
  last_event_id: Type.Optional(Type.String({ maxLength: 64 })),
});
export type JoinStreamQuery = Static<typeof JoinStreamQuery>;

export function isTrue(flag: boolean | string | undefined): boolean {
  return flag === true || flag === "1" || flag === "true";
}
